"""A scheduled operation in front of the real Django sample: the runtime's own lifespan
runs `count-finished` once per slot as its clock moves, each call audited as `schedule`
with its receipt kept, and seen by agents as `operation.scheduled` events."""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

from runtime.mapping import load_mapping_text
from runtime.service import RuntimeState
from runtime.store import Store
from runtime.upstream import UpstreamClient
from runtime.web import create_app
from tests.fixtures.clocks import MovedClock
from tests.fixtures.runtime import start_runtime
from tests.fixtures.servers import start_kanban

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "mappings" / "kanban-drf.yaml").read_text()
COUNT = "    request: {method: GET, path: /api/cards/finished-count/, send: none}\n"
APP = "kanban-drf"


def _until(done: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _scheduled(client: TestClient) -> list[dict[str, Any]]:
    events = client.get("/api/_a2app/events").json()["events"]
    return [e["payload"] for e in events if e["type"] == "operation.scheduled"]


def test_a_read_only_operation_scheduled_every_minute_runs_once_per_slot(tmp_path: Path) -> None:
    assert COUNT in TEXT
    text = TEXT.replace(COUNT, COUNT + "    schedule: {when: every 1m}\n", 1)
    clock = MovedClock(datetime(2026, 1, 10, 10, 0, 30, tzinfo=UTC))
    with start_kanban() as upstream:
        mapping = load_mapping_text(
            text, env={"KANBAN_URL": upstream.url, "KANBAN_TOKEN": upstream.token}
        )
        store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
        state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream))
        state.clock = clock
        try:
            with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
                time.sleep(0.2)
                assert _scheduled(client) == []  # the 10:00 slot passed before start: skipped
                clock.move(timedelta(seconds=30))
                _until(lambda: len(store.receipts_since(APP)) == 1)
                clock.move(timedelta(seconds=45))  # 10:01:45: still the same slot
                time.sleep(0.3)
                assert len(_scheduled(client)) == 1
                clock.move(timedelta(seconds=15))
                _until(lambda: len(store.receipts_since(APP)) == 2)
                time.sleep(0.3)
                slots = _scheduled(client)
                receipts = client.get("/api/_a2app/receipts").json()["receipts"]
            audit = store.audit_entries(APP)
        finally:
            store.close()
    assert slots == [
        {"operation": "count-finished", "slot": "2026-01-10T10:01:00Z"},
        {"operation": "count-finished", "slot": "2026-01-10T10:02:00Z"},
    ]
    assert [(e.target, e.outcome, e.principal, e.credential_id) for e in audit] == [
        ("op:count-finished", "ok", "schedule", "schedule"),
    ] * 2
    assert [r["target"] for r in receipts] == ["op:count-finished"] * 2
    assert all("count-finished" in r["text"] for r in receipts)


def test_a2map_serve_runs_a_missed_slot_at_start_on_the_real_clock(tmp_path: Path) -> None:
    """The served process on its own clock: with `onMissed: run` the slot that began
    before it started runs at once; SIGTERM then stops the schedule with the runtime."""
    schedule = "    schedule: {when: every 1m, onMissed: run}\n"
    path = tmp_path / "kanban-drf.yaml"
    path.write_text(
        TEXT.replace(COUNT, COUNT + schedule, 1).replace(
            "serve:\n", "serve:\n  timeZone: Europe/Berlin\n", 1
        )
    )
    assert "timeZone" in path.read_text()
    with start_kanban() as upstream, start_runtime(path, upstream) as rt:
        client = httpx.Client(base_url=rt.url, timeout=10)
        _until(lambda: bool(_feed(client)))
        started = datetime.now(UTC)
        slot = _feed(client)[0]  # a minute boundary may since have added the next
        receipts = client.get("/api/_a2app/receipts").json()["receipts"]
        client.close()
        rt.stop()  # SIGTERM: the lifespan ends, the schedule with it
        stderr = rt.stderr()
    assert slot["operation"] == "count-finished"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00Z", slot["slot"])
    ran = datetime.fromisoformat(slot["slot"].replace("Z", "+00:00"))
    assert timedelta(0) <= started - ran < timedelta(minutes=2)
    assert [r["target"] for r in receipts][:1] == ["op:count-finished"]
    assert "Traceback" not in stderr and "stopped by SIGTERM" in stderr


def _feed(client: httpx.Client) -> list[dict[str, Any]]:
    events = client.get("/api/_a2app/events").json()["events"]
    return [e["payload"] for e in events if e["type"] == "operation.scheduled"]
