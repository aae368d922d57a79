"""Declared codecs are proven by round trips against the real Django sample: DRF's
FloatField takes decimal text and its BooleanField takes 0 and 1, so those codecs
round-trip; the runtime then serves the decoded values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fixtures.servers import KanbanServer

from .support import run_verify
from .test_normalize import variant


def test_codecs_the_upstream_reads_round_trip(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = variant(
        tmp_path,
        lists__position={"codec": "decimal-string"},
        cards__done={"codec": "int-bool"},
    )
    report = tmp_path / "report.json"
    done = run_verify(mapping, kanban, "--only", "cards,lists", "--json", str(report))
    found: dict[str, dict[str, Any]] = {
        r["claim"]: r for r in json.loads(report.read_text())["checks"]
    }
    position = found["entities.lists.fields.position.codec"]
    assert position["outcome"] == "passed", position
    assert "2 value(s) round-trip as decimal-string" in position["note"]
    flag = found["entities.cards.fields.done.codec"]
    assert flag["outcome"] == "passed", flag
    assert "round-trip as int-bool" in flag["note"]
    assert "entities.cards.write.form" not in found  # a JSON upstream makes no form claim
    assert done.returncode == 0, done.stdout[-3000:]
