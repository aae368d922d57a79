"""Scheduled operations: each slot is claimed in the store, so of several schedulers on
one store exactly one calls; a slot missed while none served runs at start or not, as
declared; the call is the operation's own path, audited as `schedule`."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.mapping import Operation, load_mapping_text
from runtime.service import SCHEDULE_EVENT, RuntimeState, Schedules
from runtime.store import Store
from runtime.upstream import UpstreamClient
from tests.fixtures.clocks import MovedClock
from tests.fixtures.databases import DATABASES, database

ROOT = Path(__file__).resolve().parents[3]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
ENV = {"KANBAN_URL": "http://kanban.test", "KANBAN_TOKEN": "t"}
COUNT = "    request: {method: GET, path: /api/cards/finished-count/, send: none}\n"
ARCHIVE = "    request: {method: POST, path: /api/boards/board_main/archive/}\n"
APP = "conformance_kanban"


def _text(after: str, schedule: str) -> str:
    assert after in BASE
    return BASE.replace(after, after + f"    schedule: {schedule}\n", 1)


@dataclass
class Upstream:
    """The foreign API's answers, and every call it was sent."""

    calls: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            self.calls.append(f"{request.method} {request.url.path}")
        if request.url.path.endswith("/finished-count/"):
            return httpx.Response(200, json={"count": 3})
        return httpx.Response(200, json={"id": "board_main", "archived": True})


def _state(text: str, store: Store, upstream: Upstream, clock: MovedClock) -> RuntimeState:
    mapping = load_mapping_text(text, env=ENV)
    client = UpstreamClient(mapping.upstream, transport=httpx.MockTransport(upstream.handle))
    state = RuntimeState(mapping, store, client)
    state.clock = clock
    return state


def _op(state: RuntimeState, name: str) -> Operation:
    return next(op for op in state.mapping.operations if op.name == name)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def _until(done: Callable[[], bool], timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not done():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def _scheduled_slots(store: Store) -> list[str]:
    return [e.payload["slot"] for e in store.events_since(APP) if e.type == SCHEDULE_EVENT]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    try:
        yield opened
    finally:
        opened.close()


@pytest.mark.parametrize("db", DATABASES)
def test_two_schedulers_on_one_store_claim_a_slot_and_one_calls(db: str, tmp_path: Path) -> None:
    upstream = Upstream()
    text = _text(COUNT, "{when: every 15m}")
    slot = _at("2026-01-10T10:15:00")
    with database(db, tmp_path) as url:
        stores = [Store.open(url), Store.open(url)]
        clock = MovedClock(slot)
        states = [_state(text, s, upstream, clock) for s in stores]
        barrier = threading.Barrier(2)
        ran: list[bool] = []

        def claim(state: RuntimeState) -> None:
            barrier.wait()  # both insert the claim at once, as two processes would
            ran.append(asyncio.run(Schedules(state).run_slot(_op(state, "count-cards"), slot)))

        threads = [threading.Thread(target=claim, args=(s,)) for s in states]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        try:
            assert sorted(ran) == [False, True]
            assert upstream.calls == ["GET /api/cards/finished-count/"]
            assert _scheduled_slots(stores[0]) == ["2026-01-10T10:15:00Z"]
            (entry,) = stores[1].audit_entries(APP)
            assert (entry.target, entry.outcome, entry.principal, entry.credential_id) == (
                "op:count-cards", "ok", "schedule", "schedule",
            )  # fmt: skip
            (receipt,) = stores[1].receipts_since(APP)
            assert receipt.target == "op:count-cards" and "count-cards" in receipt.text
            # the slot stays claimed: asked again, neither runs it
            again = asyncio.run(Schedules(states[1]).run_slot(_op(states[1], "count-cards"), slot))
            assert again is False and len(upstream.calls) == 1
        finally:
            for s in stores:
                s.close()


@pytest.mark.parametrize("on_missed", ["run", "skip"])
def test_a_slot_missed_while_no_runtime_served_runs_at_start_only_if_declared(
    on_missed: str, store: Store
) -> None:
    upstream = Upstream()
    clock = MovedClock(_at("2026-01-10T10:07:30"))  # the 10:00 slot passed unclaimed
    state = _state(_text(COUNT, f"{{when: every 15m, onMissed: {on_missed}}}"), store, upstream,
                   clock)  # fmt: skip

    async def scenario() -> list[str]:
        schedules = Schedules(state)
        schedules.start()
        try:
            if on_missed == "run":
                await _until(lambda: len(upstream.calls) == 1)
            await asyncio.sleep(0.2)  # time enough for a wrong call to show
            at_start = _scheduled_slots(store)
            clock.move_to(_at("2026-01-10T10:15:00"))
            await _until(lambda: len(_scheduled_slots(store)) == len(at_start) + 1)
            return at_start
        finally:
            await schedules.aclose()

    at_start = asyncio.run(scenario())
    missed = ["2026-01-10T10:00:00Z"] if on_missed == "run" else []
    assert at_start == missed
    assert _scheduled_slots(store) == [*missed, "2026-01-10T10:15:00Z"]
    assert len(upstream.calls) == len(missed) + 1

    # A restart after a slot some process ran: nothing is missed, nothing runs again.
    async def restart() -> None:
        schedules = Schedules(state)
        clock.move(timedelta(minutes=5))
        schedules.start()
        await asyncio.sleep(0.2)
        await schedules.aclose()

    asyncio.run(restart())
    assert len(upstream.calls) == len(missed) + 1


def test_the_clock_moving_runs_each_slot_once(store: Store) -> None:
    upstream = Upstream()
    clock = MovedClock(_at("2026-01-10T10:00:30"))
    state = _state(_text(COUNT, "{when: every 1m}"), store, upstream, clock)

    async def scenario() -> None:
        schedules = Schedules(state)
        schedules.start()
        try:
            for seconds, expected in ((30, 1), (20, 1), (40, 2), (60, 3)):
                clock.move(timedelta(seconds=seconds))
                await asyncio.sleep(0.1)
                await _until(lambda n=expected: len(upstream.calls) == n)  # type: ignore[misc]
            # a stall past several slots runs the latest one, not a burst
            clock.move(timedelta(minutes=5))
            await _until(lambda: len(upstream.calls) == 4)
            await asyncio.sleep(0.2)
        finally:
            await schedules.aclose()

    asyncio.run(scenario())
    assert _scheduled_slots(store) == [
        "2026-01-10T10:01:00Z", "2026-01-10T10:02:00Z", "2026-01-10T10:03:00Z",
        "2026-01-10T10:08:00Z",
    ]  # fmt: skip
    assert len(upstream.calls) == 4


def test_a_destructive_schedule_the_owner_approved_runs_without_a_per_call_key(
    store: Store,
) -> None:
    upstream = Upstream()
    text = _text(ARCHIVE, "{when: daily 03:00, approvedBy: owner}").replace(
        "serve:\n", "serve:\n  approvals: owner\n  timeZone: Europe/Berlin\n", 1
    )
    state = _state(text, store, upstream, MovedClock(_at("2026-01-10T02:00:00")))
    op = _op(state, "archive-board")
    assert asyncio.run(Schedules(state).run_slot(op, _at("2026-01-10T02:00:00"))) is True
    assert upstream.calls == ["POST /api/boards/board_main/archive/"]
    (entry,) = store.audit_entries(APP)
    assert (entry.outcome, entry.principal, entry.code) == ("ok", "schedule", None)
    (event,) = store.events_since(APP)
    assert json.loads(json.dumps(event.payload)) == {
        "operation": "archive-board", "slot": "2026-01-10T02:00:00Z",
    }  # fmt: skip


def test_a_claim_the_store_refuses_loses_that_slot_not_the_schedule(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream = Upstream()
    clock = MovedClock(_at("2026-01-10T10:00:30"))
    state = _state(_text(COUNT, "{when: every 1m}"), store, upstream, clock)
    raise_event = store.raise_event
    failures = [RuntimeError("the database is gone")]

    def flaky(**kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return raise_event(**kwargs)

    monkeypatch.setattr(store, "raise_event", flaky)

    async def scenario() -> None:
        schedules = Schedules(state)
        schedules.start()
        try:
            clock.move(timedelta(seconds=30))
            await _until(lambda: not failures)
            await asyncio.sleep(0.1)
            assert upstream.calls == []
            clock.move(timedelta(minutes=1))
            await _until(lambda: len(upstream.calls) == 1)
        finally:
            await schedules.aclose()

    asyncio.run(scenario())
    assert _scheduled_slots(store) == ["2026-01-10T10:02:00Z"]
