"""Class-C conformance (C1-C8) over real HTTP: the runtime in front of the real Django
sample, the events and tasks raised by the mapping's declared triggers, nothing written
into the store by the test; then a restart on the same store keeps every task."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

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


def _events_after(client: httpx.Client, cursor: str) -> list[dict[str, Any]]:
    """The events after `cursor` once a background pass has raised some (20 s at most)."""
    deadline = time.monotonic() + 20
    while True:
        events: list[dict[str, Any]] = client.get(
            "/api/_a2app/events", params={"since": cursor}
        ).json()["events"]
        if events or time.monotonic() > deadline:
            return events
        time.sleep(0.1)


def _seen(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], e["payload"]["id"]) for e in events]


def test_a_write_through_the_runtime_raises_what_now_matches(tmp_path: Path) -> None:
    mapping = with_class_c_triggers(tmp_path)
    with (
        start_kanban(seed="due-today") as upstream,
        start_runtime(mapping, upstream, grants=CONFORMANCE_GRANTS) as rt,
        httpx.Client(base_url=rt.url, headers=FULL, timeout=30) as client,
    ):
        start = client.get("/api/_a2app/events").json()
        assert len(start["events"]) == 2
        made = client.post(
            "/api/collections/cards/records",
            json={"title": "Call the printer", "list": "list_todo"},
        )
        assert made.status_code == 200, made.text
        new_id = made.json()["id"]
        # evaluated in the background after the write
        events = _events_after(client, start["nextCursor"])
        assert _seen(events) == [("card.waiting", new_id)]
        handoffs = client.get("/api/_a2app/tasks", params={"status": "submitted"}).json()["tasks"]
        assert handoffs[-1]["request"] == {
            "capability": "handoff",
            "payload": {"id": new_id, "title": "Call the printer", "list": "list_todo"},
        }
        cursor = client.get("/api/_a2app/events", params={"since": start["nextCursor"]}).json()[
            "nextCursor"
        ]
        # the new card stops matching (nothing raised for it); card_seed changes, and
        # being a new payload, is a new occurrence of both triggers
        done = client.patch(f"/api/collections/cards/records/{new_id}", json={"done": True})
        assert done.status_code == 200
        renamed = client.patch("/api/collections/cards/records/card_seed", json={"title": "Hi"})
        assert renamed.status_code == 200
        assert _events_after(client, cursor)  # the first pass after the writes
        time.sleep(0.5)  # a pass still under way would add to it
        later = client.get("/api/_a2app/events", params={"since": cursor}).json()["events"]
        assert sorted(_seen(later)) == [
            ("card.due_soon", "card_seed"),
            ("card.waiting", "card_seed"),
        ]
