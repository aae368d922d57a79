"""Realtime fan-out from the store's change feed: frames to the clients whose topics take a
change (also one another process recorded), the bounded queue that drops a slow client
without slowing the others, deletes with the record as it was, a revoked credential, and the
stream's heartbeat and end; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime.mapping import load_mapping_text
from runtime.service import RuntimeState
from runtime.service._realtime import Realtime
from runtime.service._realtime_client import Client
from runtime.store import Seen, Store
from runtime.upstream import UpstreamClient
from tests.fixtures.databases import DATABASES, database

ROOT = Path(__file__).resolve().parents[3]
ENV = {"KANBAN_URL": "http://kanban.test", "KANBAN_TOKEN": "t"}
# the feed watches both entities, but is never started here: changes are recorded directly
TEXT = (
    (ROOT / "mappings" / "conformance-kanban.yaml")
    .read_text()
    .replace(
        "  authMode: none\n",
        "  authMode: none\n  feed: {entities: [cards, lists], interval: 3600}\n",
    )
)
TOKEN = {"x-a2app-token": "a2app_rt_full"}
APP = "conformance_kanban"


@pytest.fixture(params=DATABASES)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as found:
        yield found


def _state(url: str) -> RuntimeState:
    mapping = load_mapping_text(TEXT, env=ENV)
    return RuntimeState(mapping, Store.open(url), UpstreamClient(mapping.upstream))


@pytest.fixture
def state(url: str) -> Iterator[RuntimeState]:
    served = _state(url)
    served.store.create_grant(id="cred_full", agent_name="rt", scopes=["*"], token="a2app_rt_full")
    try:
        yield served
    finally:
        served.store.close()


def _frames(client: Client) -> list[tuple[str, dict[str, Any]]]:
    out = []
    while not client.queue.empty():
        text = client.queue.get_nowait()
        assert text is not None
        head, event, data = text.rstrip("\n").split("\n")
        assert head == f"id:{client.id}"
        out.append((event.removeprefix("event:"), json.loads(data.removeprefix("data:"))))
    return out


def _subscribe(hub: Realtime, client: Client, *topics: str) -> None:
    body = json.dumps({"clientId": client.id, "subscriptions": list(topics)}).encode()
    hub.subscribe(dict(TOKEN), body)


def _card(record_id: str, title: str) -> dict[str, Any]:
    return {"id": record_id, "title": title, "done": False}


def test_a_full_queue_drops_the_client() -> None:
    client = Client(size=2)
    assert client.offer("a") and client.offer("b")
    assert not client.offer("c") and client.dropped
    # the reader wakes to the end at once, not after what was queued
    assert client.queue.get_nowait() is None and client.queue.empty()
    assert not client.offer("d")


def test_changes_reach_the_topics_that_take_them(state: RuntimeState) -> None:
    hub, store = Realtime(state), state.store
    hub.start_at_head()
    store.feed_record(APP, "cards", [Seen("create", "old", "h0", _card("old", "before"))])
    hub.start_at_head()  # what was recorded before the fan-out started is not news
    every, one, lists = hub.connect(), hub.connect(), hub.connect()
    _subscribe(hub, every, "cards/*")
    _subscribe(hub, one, "cards/c2")
    _subscribe(hub, lists, "lists/*")
    store.feed_record(APP, "cards", [
        Seen("create", "c1", "h1", _card("c1", "one")),
        Seen("create", "c2", "h2", _card("c2", "two")),
    ])  # fmt: skip
    store.feed_record(APP, "cards", [Seen("delete", "c2", None)])
    assert hub.pump() == 3
    assert _frames(every) == [
        ("cards/*", {"action": "create", "record": _card("c1", "one")}),
        ("cards/*", {"action": "create", "record": _card("c2", "two")}),
        # the feed recorded the record before: the delete carries it as it was
        ("cards/*", {"action": "delete", "record": _card("c2", "two")}),
    ]
    assert [a for _, a in _frames(one)] == [
        {"action": "create", "record": _card("c2", "two")},
        {"action": "delete", "record": _card("c2", "two")},
    ]
    assert _frames(lists) == []
    assert hub.pump() == 0


def test_a_change_recorded_by_another_process_reaches_this_one(
    state: RuntimeState, url: str
) -> None:
    other = _state(url)  # its own store connections: another runtime process
    try:
        hub = Realtime(state)
        hub.start_at_head()
        client = hub.connect()
        _subscribe(hub, client, "cards/*")
        other.store.feed_record(APP, "cards", [Seen("update", "c1", "h1", _card("c1", "x"))])
        hub.pump()
        assert _frames(client) == [("cards/*", {"action": "update", "record": _card("c1", "x")})]
    finally:
        other.store.close()


def test_a_delete_the_feed_never_saw_carries_the_id(state: RuntimeState) -> None:
    hub = Realtime(state)
    hub.start_at_head()
    client = hub.connect()
    _subscribe(hub, client, "cards/*")
    # in the baseline only: the feed holds its hash, never its record
    state.store.feed_baseline(APP, "cards", {"c9": "h9"})
    state.store.feed_record(APP, "cards", [Seen("delete", "c9", None)])
    hub.pump()
    assert _frames(client) == [("cards/*", {"action": "delete", "record": {"id": "c9"}})]


def test_a_slow_client_is_dropped_and_the_others_served(state: RuntimeState) -> None:
    hub = Realtime(state, queue_size=2)
    hub.start_at_head()
    slow, fast = hub.connect(), hub.connect()
    _subscribe(hub, slow, "cards/*")
    _subscribe(hub, fast, "cards/*")
    for n in range(3):
        state.store.feed_record(
            APP, "cards", [Seen("create", f"c{n}", f"h{n}", _card(f"c{n}", "x"))]
        )
        hub.pump()
        if n < 2:
            assert len(_frames(fast)) == 1
    assert slow.dropped and slow.queue.get_nowait() is None
    assert not fast.dropped and len(_frames(fast)) == 1


def test_a_revoked_credential_ends_the_stream(state: RuntimeState) -> None:
    hub = Realtime(state)
    hub.start_at_head()
    client = hub.connect()
    _subscribe(hub, client, "cards/*")
    assert state.store.revoke_grant("cred_full")
    state.store.feed_record(APP, "cards", [Seen("create", "c1", "h1", _card("c1", "x"))])
    hub.pump()
    assert client.dropped and client.queue.get_nowait() is None


def test_the_stream_connects_beats_and_ends(state: RuntimeState) -> None:
    async def run() -> list[str]:
        hub = Realtime(state, heartbeat=0.05, max_age=0.18)
        client = hub.connect()
        frames = [text async for text in hub.stream(client)]
        assert client.id not in hub.clients  # forgotten once its stream ended
        return frames

    frames = asyncio.run(run())
    connect = frames[0]
    client_id = connect.split("\n")[0].removeprefix("id:")
    assert connect == f'id:{client_id}\nevent:PB_CONNECT\ndata:{{"clientId":"{client_id}"}}\n\n'
    assert 2 <= len(frames) - 1 <= 4 and set(frames[1:]) == {":\n\n"}


def test_a_dropped_client_stream_ends(state: RuntimeState) -> None:
    async def run() -> list[str]:
        hub = Realtime(state, heartbeat=10)
        client = hub.connect()
        client.offer("x")
        client.drop()
        return [text async for text in hub.stream(client)]

    assert len(asyncio.run(run())) == 1  # PB_CONNECT only: what was queued is discarded


def test_the_fan_out_task_polls_the_store_and_stops(state: RuntimeState) -> None:
    async def run() -> Client:
        hub = Realtime(state, interval=0.02)
        hub.start()
        client = hub.connect()
        _subscribe(hub, client, "cards/*")
        state.store.feed_record(APP, "cards", [Seen("create", "c1", "h1", _card("c1", "x"))])
        for _ in range(100):
            if not client.queue.empty():
                break
            await asyncio.sleep(0.02)
        assert not client.queue.empty(), "the background task did not deliver"
        running = hub._running
        await hub.aclose()
        assert running is not None and running.done()
        return client

    client = asyncio.run(run())
    # closing ends every stream: what was queued gives way to the end
    assert client.dropped and client.queue.get_nowait() is None


def test_a_change_of_this_process_wakes_the_fan_out_before_its_interval(
    state: RuntimeState,
) -> None:
    async def run() -> tuple[bool, bool]:
        hub = Realtime(state, interval=3600)
        hub.start()
        client = hub.connect()
        _subscribe(hub, client, "cards/*")
        await asyncio.sleep(0.05)  # the task's first read is done: it naps for an hour
        state.store.feed_record(APP, "cards", [Seen("create", "c1", "h1", _card("c1", "x"))])
        await asyncio.sleep(0.2)
        before = not client.queue.empty()
        hub.wake()  # what a write through the runtime does once its change is recorded
        for _ in range(100):
            if not client.queue.empty():
                break
            await asyncio.sleep(0.01)
        after = not client.queue.empty()
        await hub.aclose()
        return before, after

    assert asyncio.run(run()) == (False, True)
