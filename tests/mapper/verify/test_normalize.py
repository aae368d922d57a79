"""Declared normalisations are proven against the real Django sample, which trims text
(DRF's CharField) and keeps floats exactly, and the runtime then allows exactly them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.fixtures.runtime import GrantSpec, start_runtime
from tests.fixtures.servers import KanbanServer

from .support import ROOT, run_verify

TOKEN = "a2app_normalize_token"


def variant(where: Path, **fields: dict[str, Any]) -> Path:
    """kanban-drf.yaml with `entity__field` attributes added."""
    doc = yaml.safe_load((ROOT / "mappings" / "kanban-drf.yaml").read_text())
    for dotted, extra in fields.items():
        entity, field = dotted.split("__")
        doc["entities"][entity]["fields"][field].update(extra)
    path = where / "kanban.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def claims(report: Path) -> dict[str, dict[str, Any]]:
    return {r["claim"]: r for r in json.loads(report.read_text())["checks"]}


def test_a_true_normalisation_is_proven_and_an_untrue_one_refused(
    kanban: KanbanServer, tmp_path: Path
) -> None:
    mapping = variant(
        tmp_path, cards__title={"normalize": ["trim"]}, lists__position={"decimals": 2}
    )
    report = tmp_path / "report.json"
    done = run_verify(mapping, kanban, "--only", "cards,lists", "--json", str(report))
    found = claims(report)
    trimmed = found["entities.cards.fields.title.normalize"]
    assert trimmed["outcome"] == "passed", trimmed
    rounded = found["entities.lists.fields.position.normalize"]
    assert rounded["outcome"] == "failed", rounded
    failure = rounded["failure"]
    assert failure["type"] == "NormalizationNotApplied" and failure["wrong"] == "mapping"
    assert {"path": ["entities", "lists", "fields", "position", "decimals"],
            "action": "remove", "value": None} in failure["corrections"]  # fmt: skip
    assert done.returncode == 1


def test_the_runtime_allows_a_declared_normalisation_and_nothing_else(
    kanban: KanbanServer, tmp_path: Path
) -> None:
    grants = (GrantSpec("cred_n", "n", ("*",), TOKEN),)
    auth = {"x-a2app-token": TOKEN}
    records = "/api/collections/cards/records"
    plain = ROOT / "mappings" / "kanban-drf.yaml"
    with start_runtime(plain, kanban, grants=grants) as rt:
        answer = httpx.post(rt.url + records, json={"title": "  Padded  "}, headers=auth)
        body = answer.json()
        # DRF trimmed it: without the declaration that is a value not stored as sent
        assert (answer.status_code, body["code"]) == (422, "not_stored")
        assert body["violations"] == [
            {"code": "not_stored", "field": "title", "expected": "  Padded  ", "got": "Padded"}
        ]
    trimmed = variant(tmp_path, cards__title={"normalize": ["trim"]})
    with start_runtime(trimmed, kanban, grants=grants) as rt:
        answer = httpx.post(rt.url + records, json={"title": "  Padded  "}, headers=auth)
        assert answer.status_code == 200 and answer.json()["title"] == "Padded"


def test_every_normalisation_changes_its_probe_value() -> None:
    """Else the check could not tell a normalising upstream from a faithful one."""
    import dataclasses

    from mapper.verify._checks_normalize import probe_value
    from runtime.mapping import NORMALIZATIONS, Field
    from runtime.protocol import stored_as_sent

    kinds = {"whole-seconds": "datetime", "milliseconds": "datetime"}
    for rule in NORMALIZATIONS:
        field = Field(rule, kinds.get(rule, "string"), (rule,), normalize=(rule,))
        exact = dataclasses.replace(field, normalize=())
        sent = probe_value(field)
        normalised = {
            "trim": lambda v: v.strip(),
            "collapse-spaces": lambda v: " ".join(v.split()),
            "lowercase": str.lower,
            "uppercase": str.upper,
            "whole-seconds": lambda v: v[:19] + "Z",
            "milliseconds": lambda v: v[:23] + "Z",
        }[rule](sent)
        assert normalised != sent, rule
        assert stored_as_sent(field, sent, normalised), rule
        assert not stored_as_sent(exact, sent, normalised), rule
    number = Field("n", "number", ("n",), decimals=2)
    sent = probe_value(number)
    assert stored_as_sent(number, sent, round(sent, 2)) and sent != round(sent, 2)
