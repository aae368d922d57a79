from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from runtime.mapping import load_mapping
from runtime.protocol import schema_version

ROOT = Path(__file__).resolve().parents[3]


def test_conformance_model_has_the_reference_schema_version() -> None:
    mapping = load_mapping(ROOT / "mappings" / "conformance-kanban.yaml", resolve_env=False)
    assert schema_version(mapping) == "sv_2307d8ba"


def test_schema_version_moves_with_the_model() -> None:
    text = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
    from runtime.mapping import load_mapping_text

    changed = load_mapping_text(text.replace("max: 200", "max: 300"), resolve_env=False)
    assert schema_version(changed) != "sv_2307d8ba"
    # descriptions are not part of the published model's fingerprint
    reworded = load_mapping_text(
        text.replace("Mark one card done.", "Finish it."), resolve_env=False
    )
    assert schema_version(reworded) == "sv_2307d8ba"


def test_client_chosen_ids_move_the_schema_version() -> None:
    mapping = load_mapping(ROOT / "mappings" / "conformance-kanban.yaml", resolve_env=False)
    cards = mapping.entities["cards"]
    chosen = replace(
        mapping, entities={**mapping.entities, "cards": replace(cards, id_client=True)}
    )
    assert schema_version(chosen) != schema_version(mapping) == "sv_2307d8ba"
