"""Realtime subscriptions shared through the store, with two runtime states (two processes'
worth of store connections) on one store: a POST taken by either process reaches the
process holding the stream at its next tick; an unknown or ended client is 404 on both;
the set keeps who subscribed, never the token, and only that caller (or a credential
over a guest) replaces it, whichever process takes the POST, and another caller is told
so before its topics are checked; a process that dies leaves rows that expire and are
swept; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from runtime.mapping import load_mapping_text
from runtime.protocol import ProtocolError
from runtime.service import RuntimeState
from runtime.service._realtime import Realtime
from runtime.service._realtime_client import Client
from runtime.store import Seen, Store
from runtime.upstream import UpstreamClient
from tests.fixtures.databases import DATABASES, database

ROOT = Path(__file__).resolve().parents[3]
ENV = {"KANBAN_URL": "http://kanban.test", "KANBAN_TOKEN": "t"}
UI_ORIGIN = "http://ui.test"
SERVE = (
    "  authMode: {mode}\n  feed: {{entities: [cards], interval: 3600}}\n"
    f"  allowedOrigins: [{UI_ORIGIN}]\n"
)
SOURCE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
# multi-user: every request carries a credential; none: one without is served as a guest
TEXTS = {
    mode: SOURCE.replace("  authMode: none\n  allowedOrigins: []\n", SERVE.format(mode=mode))
    for mode in ("multi-user", "none")
}
FULL = {"x-a2app-token": "a2app_rt_full"}
CARDS = {"x-a2app-token": "a2app_rt_cards"}
APP = "conformance_kanban"


def _state(url: str, mode: str) -> RuntimeState:
    mapping = load_mapping_text(TEXTS[mode], env=ENV)
    assert mapping.serve.auth_mode == mode and mapping.serve.allowed_origins == (UI_ORIGIN,)
    return RuntimeState(mapping, Store.open(url), UpstreamClient(mapping.upstream))


@pytest.fixture
def auth_mode() -> str:
    return "multi-user"


@pytest.fixture(params=DATABASES)
def pair(
    request: pytest.FixtureRequest, tmp_path: Path, auth_mode: str
) -> Iterator[tuple[RuntimeState, ...]]:
    with database(request.param, tmp_path) as url:
        one, two = _state(url, auth_mode), _state(url, auth_mode)
        grant = one.store.create_grant
        grant(id="cred_full", agent_name="rt", scopes=["*"], token=FULL["x-a2app-token"])
        grant(id="cred_cards", agent_name="c", scopes=["data:cards:read"],
              token=CARDS["x-a2app-token"])  # fmt: skip
        try:
            yield one, two
        finally:
            one.store.close()
            two.store.close()


def _body(client_id: str, *topics: str) -> bytes:
    return json.dumps({"clientId": client_id, "subscriptions": list(topics)}).encode()


def _events(client: Client) -> list[tuple[str, dict[str, Any]]]:
    out = []
    while not client.queue.empty():
        text = client.queue.get_nowait()
        assert text is not None
        _, event, data = text.rstrip("\n").split("\n")
        out.append((event.removeprefix("event:"), json.loads(data.removeprefix("data:"))))
    return out


def _card(record_id: str) -> dict[str, Any]:
    return {"id": record_id, "title": record_id, "done": False}


def _refusal(exc: pytest.ExceptionInfo[ProtocolError]) -> tuple[int, str]:
    return exc.value.status, exc.value.code


def test_a_post_taken_by_another_process_reaches_the_stream(pair: tuple[RuntimeState, ...]) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    a.start_at_head()
    client = a.connect()
    b.subscribe(dict(FULL), _body(client.id, "cards/*"))
    assert client.topics == ()  # not applied yet: B only wrote it
    pair[1].store.feed_record(APP, "cards", [Seen("create", "c1", "h1", _card("c1"))])
    assert a.pump() == 1
    assert _events(client) == [("cards/*", {"action": "create", "record": _card("c1")})]
    assert client.caller == ("grant", "cred_full")
    # a later POST replaces the set, wherever it is taken
    b.subscribe(dict(FULL), _body(client.id, "cards/c9"))
    pair[0].store.feed_record(APP, "cards", [Seen("update", "c1", "h2", _card("c1"))])
    a.pump()
    assert _events(client) == [] and [t.raw for t in client.topics] == ["cards/c9"]


def test_the_set_is_picked_up_in_one_query_whatever_the_clients(
    pair: tuple[RuntimeState, ...],
) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    clients = [a.connect() for _ in range(20)]
    for client in clients[::2]:
        b.subscribe(dict(CARDS), _body(client.id, "cards/*"))
    assert a.pick_up() == 10
    assert all(bool(c.topics) == (i % 2 == 0) for i, c in enumerate(clients))
    assert a.pick_up() == 0  # nothing newer than what was applied


def test_the_store_keeps_who_subscribed_never_the_token(pair: tuple[RuntimeState, ...]) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    client = a.connect()
    b.subscribe(dict(CARDS), _body(client.id, "cards/c1"))
    with pair[0].store._engine.connect() as conn:  # the row as stored, every column
        rows = [
            dict(r._mapping) for r in conn.execute(text("SELECT * FROM a2app_realtime_clients"))
        ]
    assert len(rows) == 1
    row = rows[0]
    topics = row["topics"] if isinstance(row["topics"], list) else json.loads(row["topics"])
    assert (row["client_id"], topics) == (client.id, ["cards/c1"])
    assert (row["caller_kind"], row["credential_id"]) == ("grant", "cred_cards")
    assert CARDS["x-a2app-token"] not in json.dumps(row, default=str)


@pytest.mark.parametrize(
    ("case", "headers", "topics", "want"),
    [
        ("unknown client", FULL, ["cards/*"], (404, "usage")),
        ("no credential", {}, ["cards/*"], (401, "agent_token_required")),
        ("an entity it cannot read", CARDS, ["lists/*"], (403, "insufficient_scope")),
        ("an entity the feed does not watch", FULL, ["lists/*"], (400, "usage")),
        ("unknown token", {"x-a2app-token": "a2app_nope"}, [], (401, "agent_token_required")),
    ],
)
def test_another_process_refuses_as_the_holder_would(
    pair: tuple[RuntimeState, ...],
    case: str,
    headers: dict[str, str],
    topics: list[str],
    want: tuple[int, str],
) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    client = a.connect()
    client_id = "f" * 40 if case == "unknown client" else client.id
    with pytest.raises(ProtocolError) as exc:
        b.subscribe(dict(headers), _body(client_id, *topics))
    assert _refusal(exc) == want
    assert a.pick_up() == 0 and client.topics == ()


MISMATCH = (403, "realtime_auth_mismatch", "The current and the previous request "
            "authorization don't match.")  # fmt: skip
# each credential a POST may present: its headers, and the caller authorisation makes of it
AS = {
    "full": (FULL, ("grant", "cred_full")),
    "cards": (CARDS, ("grant", "cred_cards")),
    "ui": ({"origin": UI_ORIGIN}, ("ui", "ui")),
    "guest": ({}, ("anonymous", "anonymous")),
}


# topics the second POST may carry: a good one, and one refused by each topic check
GOOD = ["cards/c1"]
UNREADABLE = ["cards/c1", "lists/*"]  # lists: beyond the cards grant's scope
UNWATCHED = ["cards/c1", "lists/*"]  # lists: readable by the others, not in serve.feed
MALFORMED = ["cards/c1", "cards/c1/x"]  # neither <entity>/* nor <entity>/<id>
UNKNOWN = ["cards/c1", "boards/*"]  # no such entity in the mapping


@pytest.mark.parametrize(
    ("auth_mode", "first", "then", "topics", "want"),
    [
        ("multi-user", "full", "full", GOOD, None),
        ("multi-user", "full", "cards", GOOD, MISMATCH),
        ("multi-user", "cards", "ui", GOOD, MISMATCH),
        ("none", "guest", "guest", GOOD, None),
        ("none", "guest", "full", GOOD, None),  # the one change allowed: a guest gains a credential
        ("none", "guest", "ui", GOOD, None),
        ("none", "full", "guest", GOOD, MISMATCH),
        ("none", "full", "cards", GOOD, MISMATCH),
        ("none", "ui", "full", GOOD, MISMATCH),
        # another credential is told so before any topic is looked at, as in PocketBase
        ("multi-user", "full", "cards", UNREADABLE, MISMATCH),
        ("multi-user", "cards", "full", UNWATCHED, MISMATCH),
        ("multi-user", "cards", "full", MALFORMED, MISMATCH),
        ("none", "full", "guest", UNKNOWN, MISMATCH),
        # the same credential, or one taking over a guest's set, meets the topic checks
        ("multi-user", "cards", "cards", UNREADABLE, (403, "insufficient_scope")),
        ("multi-user", "full", "full", UNWATCHED, (400, "usage")),
        ("multi-user", "full", "full", MALFORMED, (400, "invalid_query")),
        ("none", "guest", "full", UNKNOWN, (404, "unknown_entity")),
        ("none", "guest", "ui", MALFORMED, (400, "invalid_query")),
    ],
)
def test_a_set_is_replaced_only_under_the_credential_that_wrote_it(
    pair: tuple[RuntimeState, ...],
    first: str,
    then: str,
    topics: list[str],
    want: tuple[Any, ...] | None,
) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    a.start_at_head()
    client = a.connect()
    a.subscribe(dict(AS[first][0]), _body(client.id, "cards/*"))
    assert client.caller == AS[first][1]
    # B holds nothing of the client: what it decides comes from the store's record
    refused = want is not None
    if want is not None:
        with pytest.raises(ProtocolError) as exc:
            b.subscribe(dict(AS[then][0]), _body(client.id, *topics))
        # the mismatch is also checked word for word: PocketBase's own sentence
        assert (*_refusal(exc), exc.value.message)[: len(want)] == want
    else:
        b.subscribe(dict(AS[then][0]), _body(client.id, *topics))
    pair[1].store.feed_record(APP, "cards", [Seen("create", "c2", "h1", _card("c2"))])
    a.pump()
    if refused:  # still the first POST's set: its topic takes the change, under its caller
        assert [t.raw for t in client.topics] == ["cards/*"] and client.caller == AS[first][1]
        assert _events(client) == [("cards/*", {"action": "create", "record": _card("c2")})]
    else:
        assert [t.raw for t in client.topics] == ["cards/c1"] and _events(client) == []
        assert client.caller == AS[then][1]
    stored = pair[0].store.realtime_sets(a.holder, -1)
    assert [(s.caller_kind, s.credential_id) for s in stored] == [client.caller]


def test_an_ended_stream_is_unknown_to_every_process(pair: tuple[RuntimeState, ...]) -> None:
    a, b = Realtime(pair[0], heartbeat=0.01, max_age=0.03), Realtime(pair[1])

    async def run() -> str:
        client = a.connect()
        async for _ in a.stream(client):
            pass
        return client.id

    client_id = asyncio.run(run())
    for hub in (a, b):
        with pytest.raises(ProtocolError) as exc:
            hub.subscribe(dict(FULL), _body(client_id))
        assert _refusal(exc) == (404, "usage")


def test_a_revoked_grant_ends_a_stream_subscribed_elsewhere(
    pair: tuple[RuntimeState, ...],
) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    a.start_at_head()
    client = a.connect()
    b.subscribe(dict(CARDS), _body(client.id, "cards/*"))
    assert pair[1].store.revoke_grant("cred_cards")
    pair[1].store.feed_record(APP, "cards", [Seen("create", "c1", "h1", _card("c1"))])
    a.pump()
    assert client.dropped and client.queue.get_nowait() is None


def test_a_dead_process_rows_expire_and_are_swept(pair: tuple[RuntimeState, ...]) -> None:
    dead, alive = Realtime(pair[0], beat=0, expiry=0.3), Realtime(pair[1], beat=0, expiry=0.3)
    gone = dead.connect()  # its process stalls: it does not beat
    kept = alive.connect()
    alive.subscribe(dict(FULL), _body(gone.id, "cards/*"))  # live until the expiry
    time.sleep(0.5)
    with pytest.raises(ProtocolError) as exc:
        alive.subscribe(dict(FULL), _body(gone.id, "cards/*"))
    assert _refusal(exc) == (404, "usage")
    alive.keep_alive()  # its heartbeat sweeps the dead process's rows, keeps its own
    assert pair[1].store.realtime_sets(dead.holder, -1) == []
    alive.subscribe(dict(FULL), _body(kept.id, "cards/*"))
    assert [s.client_id for s in pair[1].store.realtime_sets(alive.holder, -1)] == [kept.id]
    # the dead process was only stalled: its next heartbeat finds itself swept, ends its
    # streams (their clients are unknown elsewhere) and holds new ones again
    dead.keep_alive()
    assert gone.dropped
    fresh = dead.connect()
    alive.subscribe(dict(FULL), _body(fresh.id, "cards/c1"))
    assert dead.pick_up() == 1 and [t.raw for t in fresh.topics] == ["cards/c1"]


def test_a_process_that_stops_removes_its_rows(pair: tuple[RuntimeState, ...]) -> None:
    a, b = Realtime(pair[0]), Realtime(pair[1])
    client = a.connect()
    asyncio.run(a.aclose())
    assert client.dropped
    with pytest.raises(ProtocolError) as exc:
        b.subscribe(dict(FULL), _body(client.id))
    assert _refusal(exc) == (404, "usage")


def test_a_process_without_a_fan_out_task_beats_when_a_stream_opens(
    pair: tuple[RuntimeState, ...],
) -> None:
    # no feed task beats for it, and no stream did: another process swept it
    idle, other = Realtime(pair[0], beat=0, expiry=0.2), Realtime(pair[1], beat=0, expiry=0.2)
    idle.connect()
    time.sleep(0.3)
    other.keep_alive()
    client = idle.connect()  # held again before the new client is written
    other.subscribe(dict(FULL), _body(client.id))
    assert idle.pick_up() == 1 and client.caller == ("grant", "cred_full")
