"""`a2map review`: per entity its fields with evidence and confidence, then the decisions."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from mapper._review import review_items
from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
PROBED = ROOT / "mappings" / "kanban-drf.probed.yaml"
DOC = yaml.safe_load(PROBED.read_text())
runner = CliRunner()


def test_the_probed_sample_review() -> None:
    result = runner.invoke(app, ["review", str(PROBED)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith(
        "kanban (Kanban API): 4 entities, 4 operations, 2 unmapped; schemaVersion sv_"
    )
    assert (
        "  list      ref       -> lists" in out and "openapi, options, sample, name, lookup" in out
    )
    assert "needs a decision (3):" in out
    assert "operations.archive-board: destructive by name only" in out
    assert "unmapped GET /api/schema/: not mapped: spec-document" in out


def _field(doc: dict[str, Any], **spec: Any) -> None:
    doc["entities"]["cards"]["fields"]["extra"] = {"type": "string", **spec}


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        (
            {"type": "enum", "values": ["a", "b"], "valuesClosed": False, "confidence": "low"},
            "enum candidates",
        ),
        (
            {"confidence": "low", "note": "disagree: openapi says number, sample says string"},
            "sources disagree",
        ),
        (
            {"note": "ref candidate lists (by name); only a live lookup can confirm it"},
            "possible ref",
        ),
        (
            {"writeOnly": True, "note": "write-only: declared for writes but never answered"},
            "guessed flag",
        ),
        ({"confidence": "low"}, "low confidence"),
    ],
)
def test_what_needs_a_decision(spec: dict[str, Any], kind: str) -> None:
    doc = copy.deepcopy(DOC)
    _field(doc, **spec)
    found = [i for i in review_items(doc) if i.where == "entities.cards.fields.extra"]
    assert [i.kind for i in found] == [kind]


def test_assumptions_in_probe_notes_need_a_decision() -> None:
    doc = copy.deepcopy(DOC)
    doc["probe"]["notes"].append("upstream.pagination: page parameter page: assumed, not seen")
    assert review_items(doc)[-3].kind == "assumption"


def test_bad_inputs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\n")
    assert runner.invoke(app, ["review", str(bad)]).exit_code == 1
    assert runner.invoke(app, ["review", str(tmp_path / "missing.yaml")]).exit_code == 2


def test_a_listing_by_post_is_left_for_the_owner_to_prove() -> None:
    doc = copy.deepcopy(DOC)
    doc["entities"]["cards"]["list"] = {"method": "POST", "path": "/api/cards/filter"}
    listed = [i for i in review_items(doc) if i.where == "entities.cards.list"]
    assert [(i.kind, i.message) for i in listed] == [
        ("listing by POST unproven", "POST /api/cards/filter, from the spec, not sent by the probe")
    ]


def test_write_names_and_client_chosen_ids_are_shown(tmp_path: Path) -> None:
    doc = copy.deepcopy(DOC)
    doc["entities"]["cards"]["fields"]["list"].update(source="list.id", writeSource="list_id")
    doc["entities"]["tags"]["id"] = {"source": "slug", "type": "string", "client": True}
    path = tmp_path / "shapes.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    result = runner.invoke(app, ["review", str(path)])
    assert result.exit_code == 0, result.output
    assert "ref       -> lists writes list_id" in result.output
    assert (
        "tags (module tags, /api/tags/, id slug chosen by the client, confidence" in result.output
    )
