"""Class-C conformance (C1-C8) over real HTTP: the runtime in front of the real Django
sample, the events and tasks raised by the mapping's declared triggers, nothing written
into the store by the test; then a restart on the same store keeps every task."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.conformance.runner import load_suite, run
from tests.fixtures.databases import DATABASES, database
from tests.fixtures.runtime import (
    CONFORMANCE_GRANTS,
    CONFORMANCE_TOKENS,
    start_runtime,
    with_class_c_triggers,
)
from tests.fixtures.servers import start_kanban

SUITE = Path(__file__).resolve().parents[2] / "conformance" / "class_c.yaml"
FULL = {"x-a2app-token": CONFORMANCE_TOKENS["full"]}


@pytest.mark.parametrize("db", DATABASES)
def test_class_c_8_of_8(db: str, tmp_path: Path) -> None:
    mapping = with_class_c_triggers(tmp_path)
    with database(db, tmp_path) as store_url, start_kanban(seed="due-today") as upstream:
        with start_runtime(mapping, upstream, store_url=store_url, grants=CONFORMANCE_GRANTS) as rt:
            results = run(load_suite(SUITE), rt.url, CONFORMANCE_TOKENS)
            before = httpx.get(f"{rt.url}/api/_a2app/tasks", headers=FULL).json()["tasks"]
        failures = [
            f"#{r.check.n} {r.check.name}: {'; '.join(r.failures)}" for r in results if not r.ok
        ]
        assert len(results) == 8
        assert failures == []
        # the card due today asks for a summary, the card in To Do for a handoff
        assert [(t["request"]["capability"], t["status"]) for t in before] == [
            ("summarize", "completed"),
            ("handoff", "submitted"),
        ]
        assert before[0]["request"]["payload"]["id"] == "card_seed"

        # A restart evaluates the triggers again: the same occurrences, nothing new.
        with start_runtime(mapping, upstream, store_url=store_url) as again:
            after = httpx.get(f"{again.url}/api/_a2app/tasks", headers=FULL).json()["tasks"]
            events = httpx.get(f"{again.url}/api/_a2app/events").json()["events"]
    assert [(t["id"], t["status"]) for t in after] == [(t["id"], t["status"]) for t in before]
    assert [e["type"] for e in events] == ["card.due_soon", "card.waiting"]
