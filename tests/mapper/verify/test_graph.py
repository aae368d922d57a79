"""Parents are created first; entities unlinked by references are verified side by side."""

from __future__ import annotations

from pathlib import Path

import pytest

from mapper.verify._graph import components, parents_first
from runtime.mapping import load_mapping, load_mapping_text

ROOT = Path(__file__).resolve().parents[3]


def _mapping(name: str) -> object:
    return load_mapping(ROOT / "mappings" / name, resolve_env=False)


@pytest.mark.parametrize(
    ("name", "order", "groups"),
    [
        ("kanban-drf.yaml", ["boards", "lists", "tags", "cards"],
         [["boards", "lists", "tags", "cards"]]),
        ("conformance-kanban.yaml", ["lists", "cards"], [["lists", "cards"]]),
    ],
)  # fmt: skip
def test_creation_order_and_groups(name: str, order: list[str], groups: list[list[str]]) -> None:
    mapping = _mapping(name)
    assert parents_first(mapping) == order  # type: ignore[arg-type]
    assert components(mapping, order) == groups  # type: ignore[arg-type]


THREE = """
format: 1
app: {id: three}
upstream: {baseUrl: "http://three.test"}
modules: [{name: m}]
entities:
  notes:
    {module: m, path: /notes/, fields: {text: {type: string}, about: {type: ref, entity: people}}}
  people: {module: m, path: /people/, fields: {name: {type: string}}}
  rooms: {module: m, path: /rooms/, fields: {name: {type: string}}}
"""


def test_unlinked_entities_form_their_own_groups() -> None:
    mapping = load_mapping_text(THREE)
    assert parents_first(mapping) == ["people", "notes", "rooms"]
    assert components(mapping, mapping.entities) == [["people", "notes"], ["rooms"]]
    assert components(mapping, ["rooms", "notes"]) == [["notes"], ["rooms"]]
