"""`a2map diff`: meaning, not layout or evidence; and whether schemaVersion moves."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from mapper._diff import diff_docs
from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "mappings" / "kanban-drf.yaml").read_text())
runner = CliRunner()
Edit = Callable[[dict[str, Any]], None]


def _cards(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["entities"]["cards"]


def _retype_due(doc: dict[str, Any]) -> None:
    _cards(doc)["fields"]["due"] = {"type": "datetime"}


def _new_op(doc: dict[str, Any]) -> None:
    doc["operations"].append(
        {
            "name": "purge-tags",
            "module": "labels",
            "destructive": True,
            "params": {},
            "request": {"method": "DELETE", "path": "/api/tags/"},
        }
    )


SCENARIOS: list[tuple[str, Edit, list[str], bool]] = [
    ("nothing", lambda d: None, [], False),
    (
        "evidence, confidence and notes only",
        lambda d: _cards(d)["fields"]["title"].update(
            evidence=["owner"], confidence="low", note="x"
        ),
        [],
        False,
    ),
    (
        "a type",
        _retype_due,
        [
            "~ entities.cards.fields.due: type string -> datetime",
            "~ entities.cards.fields.due: max 10 -> (none)",
            "~ entities.cards.fields.due: format YYYY-MM-DD -> (none)",
        ],
        True,
    ),
    (
        "an enum value",
        lambda d: _cards(d)["fields"]["priority"]["values"].append("blocked"),
        ["~ entities.cards.fields.priority: values +blocked"],
        True,
    ),
    (
        "a field added",
        lambda d: _cards(d)["fields"].update(notes={"type": "string"}),
        ["+ entities.cards.fields.notes: string"],
        True,
    ),
    (
        "a field removed",
        lambda d: _cards(d)["fields"].pop("tags"),
        ["- entities.cards.fields.tags"],
        True,
    ),
    (
        "an entity removed",
        lambda d: d["entities"].pop("tags") and _cards(d)["fields"].pop("tags"),
        ["- entities.tags", "- entities.cards.fields.tags"],
        True,
    ),
    ("an operation added", _new_op, ["+ operations.purge-tags"], True),
    (
        "destructive flips",
        lambda d: d["operations"][0].update(destructive=False),
        ["~ operations.archive-board: destructive true -> false"],
        True,
    ),
    (
        "a filter param",
        lambda d: _cards(d)["filter"]["title"].update({"~": "title__contains"}),
        ["~ entities.cards.filter title ~: title__icontains -> title__contains"],
        False,
    ),
    (
        "pagination",
        lambda d: d["upstream"]["pagination"].update(maxSize=100),
        [
            "~ upstream: pagination {style: page, page: page, size: page_size, items: results, "
            "total: count, next: next, maxSize: 1000} -> {style: page, page: page, "
            "size: page_size, items: results, total: count, next: next, maxSize: 100}"
        ],
        False,
    ),
    (
        "the URL's default only",
        lambda d: d["upstream"].update(baseUrl="${KANBAN_URL:-http://127.0.0.1:41999}"),
        [],
        False,
    ),
    (
        "the URL's variable",
        lambda d: d["upstream"].update(baseUrl="${BOARD_URL:-http://127.0.0.1:8000}"),
        ["~ upstream: baseUrl ${KANBAN_URL} -> ${BOARD_URL}"],
        False,
    ),
    (
        "listed by POST",
        lambda d: _cards(d).update(
            list={"method": "POST", "path": "/api/cards/filter", "evidence": ["openapi"]}
        ),
        ["~ entities.cards: list (none) -> {method: POST, path: /api/cards/filter}"],
        False,
    ),
    (
        "write name",
        lambda d: d["entities"]["cards"]["fields"]["list"].update(writeSource="list_id"),
        ["~ entities.cards.fields.list: writeSource (none) -> list_id"],
        False,
    ),
    (
        "a schedule",
        lambda d: next(o for o in d["operations"] if o["name"] == "count-finished").update(
            schedule={"when": "every 15m", "onMissed": "run"}
        ),
        ["~ operations.count-finished: schedule (none) -> {when: every 15m, onMissed: run}"],
        False,
    ),
    (
        "an origin allowed, a limit raised",
        lambda d: d["serve"].update(
            allowedOrigins=["https://ui.example"], rateLimits={"data": 600}
        ),
        [
            "+ serve.allowedOrigins: [https://ui.example]",
            "+ serve.rateLimits.data: 600",
        ],
        False,
    ),
    (
        "a trigger added, the auth mode changed",
        lambda d: d["serve"].update(
            authMode="multi-user",
            triggers=[{"type": "card.late", "entity": "cards", "filter": "done = false"}],
        ),
        [
            "+ serve.authMode: multi-user",
            "+ serve.triggers[card.late].type: card.late",
            "+ serve.triggers[card.late].entity: cards",
            "+ serve.triggers[card.late].filter: done = false",
        ],
        False,
    ),
    (
        "unmapped",
        lambda d: d["unmapped"].append({"path": "/x", "reason": "non-json: text"}),
        ["+ unmapped /x: non-json: text"],
        False,
    ),
]


@pytest.mark.parametrize(
    ("name", "edit", "lines", "moves"), SCENARIOS, ids=[s[0] for s in SCENARIOS]
)
def test_semantic_changes(
    tmp_path: Path, name: str, edit: Edit, lines: list[str], moves: bool
) -> None:
    new = copy.deepcopy(BASE)
    edit(new)
    assert diff_docs(BASE, new) == lines
    old_file, new_file = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old_file.write_text(yaml.safe_dump(BASE, sort_keys=False))
    new_file.write_text(yaml.safe_dump(new, sort_keys=False))
    result = runner.invoke(app, ["diff", str(old_file), str(new_file)])
    assert result.exit_code == (1 if lines else 0), result.output
    last = result.output.strip().splitlines()[-1 if lines else -2]
    assert last.startswith("schemaVersion moves" if moves else "schemaVersion unchanged")


def test_the_probed_and_hand_written_mappings_differ_in_grouping_not_fields() -> None:
    probed = yaml.safe_load((ROOT / "mappings" / "kanban-drf.probed.yaml").read_text())
    changes = diff_docs(BASE, probed)
    assert not [c for c in changes if ".fields." in c and ": type " in c]
    assert "~ entities.cards: module board -> cards" in changes


def test_unusable_inputs_exit_2(tmp_path: Path) -> None:
    good = str(ROOT / "mappings" / "kanban-drf.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 2\n")
    assert runner.invoke(app, ["diff", good, str(tmp_path / "missing.yaml")]).exit_code == 2
    assert runner.invoke(app, ["diff", good, str(bad)]).exit_code == 2


def test_triggers_are_compared_by_type_not_by_place() -> None:
    late = {"type": "card.late", "entity": "cards", "filter": "done = false"}
    anyone = {"type": "card.any", "entity": "cards", "filter": "id != ''"}
    old, new = copy.deepcopy(BASE), copy.deepcopy(BASE)
    old["serve"]["triggers"] = [late, anyone]
    new["serve"]["triggers"] = [anyone, {**late, "filter": "done = true"}]
    assert diff_docs(old, new) == [
        "~ serve.triggers[card.late].filter: done = false -> done = true"
    ]
