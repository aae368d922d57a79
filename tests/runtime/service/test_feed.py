"""The change feed's poller over a DRF-shaped upstream held here: baseline, changes as
events, the budget that stops a walk and resumes it, the newest-first walk, the triggers
checked on a change, and one poller per entity across processes sharing a store."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec

import httpx
import pytest
import yaml

from runtime.mapping import Mapping as MappingModel
from runtime.mapping import Stamp, load_document
from runtime.service import ChangeFeed, Triggers, feed_record_hash
from runtime.store import Seen, Store
from tests.fixtures.databases import DATABASES, database

ROOT = Path(__file__).resolve().parents[3]
DOC = yaml.safe_load((ROOT / "mappings" / "kanban-drf.yaml").read_text())
ENV = {"KANBAN_URL": "http://kanban.test", "KANBAN_TOKEN": "t"}
P = ParamSpec("P")


def _sync(test: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, None]:
    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


def _mapping(feed: dict[str, Any], triggers: list[dict[str, Any]] | None = None) -> MappingModel:
    doc = {**DOC, "serve": {**DOC["serve"], "feed": feed}}
    if triggers:
        doc["serve"]["triggers"] = triggers
    return load_document(doc, env=ENV)


def _card(n: int, **over: Any) -> dict[str, Any]:
    return {"id": f"card_{n:03}", "title": f"Card {n}", "list": "list_todo", "priority": "low",
            "due": None, "done": False, "created": "2030-01-01T00:00:00Z", "tags": [],
            **over}  # fmt: skip


@dataclass
class Django:
    """`/api/cards/` paged as DRF pages it; `gate`, when set, holds every answer."""

    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: int = 0
    orderings: list[str] = field(default_factory=list)
    gate: asyncio.Event | None = None
    unlisted: set[str] = field(default_factory=set)  # kept out of the listing, as a shift does
    etag: bool = False  # the plain listing tagged, 304 to a matching If-None-Match
    conditional: list[int] = field(default_factory=list)  # the status of each conditional ask

    def add(self, *cards: dict[str, Any]) -> None:
        self.cards.update({c["id"]: c for c in cards})

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.gate is not None:
            await self.gate.wait()
        path = request.url.path
        if path != "/api/cards/":
            card = self.cards.get(path.removeprefix("/api/cards/").rstrip("/"))
            if card is None:
                return httpx.Response(404, json={"detail": "Not found."})
            return httpx.Response(200, json=card)
        params = request.url.params
        page, size = int(params.get("page", "1")), int(params.get("page_size", "100"))
        rows = [c for c in self.cards.values() if c["id"] not in self.unlisted]
        ordering = params.get("ordering", "")
        self.orderings.append(ordering)
        if ordering:
            key = ordering.lstrip("-")
            rows.sort(key=lambda r: r[key], reverse=ordering.startswith("-"))
        chunk = rows[(page - 1) * size : page * size]
        more = page * size < len(rows)
        nxt = str(request.url.copy_merge_params({"page": str(page + 1)})) if more else None
        body = {"count": len(rows), "next": nxt, "results": chunk}
        if not self.etag or params:
            return httpx.Response(200, json=body)
        tag = '"' + feed_record_hash(body) + '"'
        if "If-None-Match" in request.headers:
            self.conditional.append(304 if request.headers["If-None-Match"] == tag else 200)
            if self.conditional[-1] == 304:
                return httpx.Response(304)
        return httpx.Response(200, json=body, headers={"ETag": tag})


@dataclass
class Host:
    mapping: MappingModel
    store: Store
    fanout: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(8))
    triggers: Triggers = field(init=False)
    passes: list[str] = field(default_factory=list)  # the filters a trigger pass read

    def __post_init__(self) -> None:
        self.triggers = Triggers(self, self)

    async def listing(self, entity: Any, query: Mapping[str, str]) -> dict[str, Any]:
        self.passes.append(query["filter"])
        return {"items": []}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=DATABASES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as opened:
        yield opened


def _feed(host: Host, django: Django, clock: Clock | None = None) -> ChangeFeed:
    assert host.mapping.serve.feed is not None
    return ChangeFeed(host, host.mapping.serve.feed, clock=clock or Clock(),
                      transport=httpx.MockTransport(django.handle))  # fmt: skip


def _types(store: Store) -> list[tuple[str, str]]:
    return [(e.type, e.payload["id"]) for e in store.events_since("kanban-drf")]


@_sync
async def test_a_baseline_then_creates_updates_and_deletes_as_events(store: Store) -> None:
    django = Django()
    django.add(_card(1), _card(2), _card(3))
    feed = _feed(Host(_mapping({"entities": ["cards"]}), store), django)
    try:
        assert await feed.poll() == []  # the baseline
        assert _types(store) == []
        state = store.feed_state("kanban-drf", "cards")
        assert state is not None and state.note == "baseline of 3 records"
        django.add(_card(4), _card(2, title="Changed"))
        del django.cards["card_003"]
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [
            ("update", "card_002"), ("create", "card_004"), ("delete", "card_003")
        ]  # fmt: skip
        assert _types(store) == [
            ("cards.updated", "card_002"), ("cards.created", "card_004"),
            ("cards.deleted", "card_003"),
        ]  # fmt: skip
        first = store.events_since("kanban-drf")[0].payload
        assert first["record"]["title"] == "Changed"
        assert await feed.poll() == []  # nothing changed since
    finally:
        await feed.aclose()


@_sync
async def test_a_change_recorded_without_its_event_gets_it_later(store: Store) -> None:
    feed = _feed(Host(_mapping({"entities": ["cards"]}), store), Django())
    try:
        # as a process stopped between the two would leave it
        store.feed_record("kanban-drf", "cards", [Seen("delete", "card_009", None)])
        store.feed_baseline("kanban-drf", "cards", {})
        assert feed.raise_unraised() == 0  # nothing was held: a delete of an absent id
        store.feed_record("kanban-drf", "cards", [Seen("create", "card_009", "a" * 64, {})])
        assert feed.raise_unraised() == 1
        assert feed.raise_unraised() == 0
        assert _types(store) == [("cards.created", "card_009")]
    finally:
        await feed.aclose()


@_sync
async def test_a_record_the_walk_missed_but_still_there_is_no_delete(store: Store) -> None:
    django = Django()
    django.add(_card(1), _card(2))
    feed = _feed(Host(_mapping({"entities": ["cards"]}), store), django)
    try:
        await feed.poll()
        django.unlisted.add("card_002")  # shifted out of the pages as the walk ran
        before = django.requests
        assert await feed.poll() == []
        assert django.requests == before + 2  # the page, and the look-up of card_002
        assert "card_002" in store.feed_snapshot("kanban-drf", "cards")
    finally:
        await feed.aclose()


@_sync
async def test_the_verifiers_records_raise_nothing(store: Store) -> None:
    django = Django()
    django.add(_card(1))
    feed = _feed(Host(_mapping({"entities": ["cards"]}), store), django)
    try:
        await feed.poll()
        django.add(_card(2, title="a2v-0123456789abcdef probe"), _card(3))
        assert [c.record_id for c in await feed.poll()] == ["card_003"]
    finally:
        await feed.aclose()


@_sync
async def test_the_budget_stops_a_walk_and_it_resumes_at_the_next_poll(store: Store) -> None:
    django = Django()
    django.add(*(_card(n) for n in range(1, 451)))  # three pages of 200
    clock = Clock()
    feed = _feed(Host(_mapping({"entities": ["cards"], "budget": 2}), store), django, clock)
    try:
        await feed.poll()
        assert django.requests == 2
        state = store.feed_state("kanban-drf", "cards")
        assert state is not None and state.baseline_at is None
        assert state.note is not None and "stopped at page 3 by the budget" in state.note
        await feed.poll()  # within the same minute: nothing left to spend
        assert django.requests == 2
        clock.now += 61
        await feed.poll()
        assert django.requests == 3  # page 3 only: the walk resumed
        state = store.feed_state("kanban-drf", "cards")
        assert state is not None and state.note == "baseline of 450 records"
        assert len(store.feed_snapshot("kanban-drf", "cards")) == 450
    finally:
        await feed.aclose()


@_sync
async def test_a_change_is_checked_against_the_entitys_triggers_here(store: Store) -> None:
    django = Django()
    django.add(_card(1))
    triggers = [{"type": "card.urgent", "entity": "cards", "filter": 'priority = "urgent"',
                 "capability": "triage", "payload": ["title"]}]  # fmt: skip
    host = Host(_mapping({"entities": ["cards"]}, triggers), store)
    feed = _feed(host, django)
    try:
        await feed.poll()
        django.add(_card(1, priority="urgent"), _card(2))
        await feed.poll()
        assert _types(store) == [
            ("cards.updated", "card_001"),
            ("card.urgent", "card_001"),
            ("cards.created", "card_002"),
        ]
        tasks = store.list_tasks("kanban-drf")
        assert [(t.capability, t.payload) for t in tasks] == [
            ("triage", {"id": "card_001", "title": "Card 1"})
        ]
        await host.triggers.settled()
        assert host.passes == []  # evaluated on the record in hand: nothing read again
    finally:
        await feed.aclose()


@_sync
async def test_a_trigger_reading_through_refs_gets_one_pass(store: Store) -> None:
    django = Django()
    django.add(_card(1))
    triggers = [{"type": "card.todo", "entity": "cards", "filter": 'list.title = "To Do"'}]
    host = Host(_mapping({"entities": ["cards"]}, triggers), store)
    feed = _feed(host, django)
    try:
        await feed.poll()
        django.add(_card(2), _card(3))
        await feed.poll()
        await host.triggers.settled()
        assert host.passes == ['list.title = "To Do"']  # one pass for both changes
    finally:
        await feed.aclose()


@_sync
async def test_a_write_through_the_runtime_enters_the_feed_once(store: Store) -> None:
    django = Django()
    django.add(_card(1))
    feed = _feed(Host(_mapping({"entities": ["cards"]}), store), django)
    try:
        await feed.poll()
        written = _card(2, title="Through the runtime")
        django.add(written)
        feed.written("cards", "create", "card_002", written)
        assert _types(store) == [("cards.created", "card_002")]
        assert await feed.poll() == []  # the snapshot has it already
    finally:
        await feed.aclose()


def _with_etag(feed: dict[str, Any]) -> MappingModel:
    """Cards whose listing's ETag a stamp proved (as `Stamp.apply` sets it)."""
    stamp = Stamp("sha256:" + "0" * 64, "kanban-drf", "http://kanban.test", "2030-01-01T00:00:00Z",
                  "1", proven_etags=("cards",))  # fmt: skip
    return stamp.apply(_mapping(feed))


@_sync
async def test_a_complete_walk_is_skipped_while_the_proven_etag_answers_304(store: Store) -> None:
    django = Django(etag=True)
    django.add(_card(1), _card(2))
    feed = _feed(Host(_with_etag({"entities": ["cards"]}), store), django)
    try:
        await feed.poll()  # the tag, then the baseline's walk
        assert django.requests == 2
        assert await feed.poll() == [] and django.requests == 3 and django.conditional == [304]
        django.add(_card(2, title="Changed"))
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [("update", "card_002")]
        assert django.conditional == [304, 200]
        assert await feed.poll() == [] and django.conditional == [304, 200, 304]
    finally:
        await feed.aclose()


@_sync
async def test_a_delete_the_budget_left_unconfirmed_is_walked_for_again(store: Store) -> None:
    """A walk whose delete waits for the budget keeps no tag: the next poll walks again,
    though the listing is as that walk read it, and records the delete."""
    django = Django(etag=True)
    django.add(_card(1), _card(2), _card(3))
    clock = Clock()
    host = Host(_with_etag({"entities": ["cards"], "budget": 3}), store)
    feed = _feed(host, django, clock)
    try:
        await feed.poll()
        clock.now += 61
        del django.cards["card_002"], django.cards["card_003"]
        changes = await feed.poll()  # tag, page, one look-up: the second delete waits
        assert [(c.action, c.record_id) for c in changes] == [("delete", "card_002")]
        clock.now += 61
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [("delete", "card_003")]
        # the second poll asked with the baseline's tag; the third had none to ask with
        assert django.conditional == [200]
        clock.now += 61
        assert await feed.poll() == [] and django.conditional == [200, 304]
    finally:
        await feed.aclose()


@_sync
async def test_served_unproven_the_etag_is_never_asked(store: Store) -> None:
    django = Django(etag=True)
    django.add(_card(1))
    feed = _feed(Host(_mapping({"entities": ["cards"]}), store), django)
    try:
        for _ in range(3):
            await feed.poll()
        assert django.requests == 3 and django.conditional == []  # a walk each poll
    finally:
        await feed.aclose()


def _with_updated(proven: str | None) -> MappingModel:
    """Cards with an `updated` datetime the upstream sorts by; `proven`: the field a stamp
    proved moves on every update (as `Stamp.apply` sets it), None when none was."""
    doc_mapping = _mapping({"entities": ["cards"]})
    cards = doc_mapping.entities["cards"]
    updated = dataclasses.replace(cards.fields["created"], name="updated", source=("updated",))
    assert cards.sort is not None
    cards = dataclasses.replace(
        cards,
        fields=dict({**cards.fields, "updated": updated}),
        sort=dataclasses.replace(cards.sort, fields=(*cards.sort.fields, "updated"), proven=True),
    )
    mapping = dataclasses.replace(
        doc_mapping, entities=dict({**doc_mapping.entities, "cards": cards})
    )
    stamp = Stamp("sha256:" + "0" * 64, "kanban-drf", "http://kanban.test", "2030-01-01T00:00:00Z",
                  "1", proven_feed={"cards": proven} if proven else {})  # fmt: skip
    return stamp.apply(mapping)


@pytest.mark.parametrize(
    "proven", [None, "title"], ids=["no stamp proof", "a proof of no datetime field"]
)
@_sync
async def test_a_field_named_updated_proves_nothing(store: Store, proven: str | None) -> None:
    """Without the stamp's word that `updated` moves, every poll is a complete walk: an
    app that sets it on create only would hide every update from a newest-first walk."""
    django = Django()
    django.add(*(_card(n, updated="2030-01-01T00:00:00Z") for n in range(1, 4)))
    feed = _feed(Host(_with_updated(proven), store), django)
    try:
        await feed.poll()
        django.add(_card(1, title="Changed", updated="2030-01-01T00:00:00Z"))
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [("update", "card_001")]
        assert django.orderings == ["", ""]
    finally:
        await feed.aclose()


@_sync
async def test_a_proven_modified_field_is_read_newest_first(store: Store) -> None:
    mapping = _with_updated("updated")
    assert mapping.serve.feed is not None and mapping.serve.feed.modified == {"cards": "updated"}
    django = Django()
    django.add(*(_card(n, updated=f"2030-01-01T00:00:{n:02}Z") for n in range(1, 6)))
    feed = _feed(Host(mapping, store), django)
    try:
        await feed.poll()  # the baseline reads every record, in no order
        assert django.orderings == [""]
        django.add(_card(3, title="Later", updated="2030-01-01T00:01:00Z"))
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [("update", "card_003")]
        assert django.orderings[-1] == "-updated"
        del django.cards["card_005"]
        for _ in range(7):  # polls 3 to 9 read newest first: no delete can be seen
            assert await feed.poll() == []
        assert set(django.orderings[1:]) == {"-updated"}
        gone = await feed.poll()  # the 10th poll walks every record
        assert [(c.action, c.record_id) for c in gone] == [("delete", "card_005")]
        assert django.orderings[-1] == ""
    finally:
        await feed.aclose()


@pytest.mark.postgres
@_sync
async def test_one_process_polls_an_entity_and_every_process_serves_its_events(
    tmp_path: Path,
) -> None:
    django = Django()
    django.add(_card(1))
    mapping = _mapping({"entities": ["cards"]})
    with database("postgresql", tmp_path) as url, Store.open(url) as one, Store.open(url) as two:
        first, second = _feed(Host(mapping, one), django), _feed(Host(mapping, two), django)
        try:
            django.gate = asyncio.Event()
            polling = asyncio.create_task(first.poll())
            while django.requests == 0:  # the first is inside its walk, holding the lease
                await asyncio.sleep(0.01)
            assert await second.poll() == []  # refused the lease: it read nothing
            assert django.requests == 1
            django.gate.set()
            await polling
            django.gate = None
            django.add(_card(2))
            assert await second.poll() == []  # the first still holds the lease
            assert [c.record_id for c in await first.poll()] == ["card_002"]
            assert _types(one) == _types(two) == [("cards.created", "card_002")]
            await first.aclose()  # hands the lease back
            django.add(_card(3))
            assert [c.record_id for c in await second.poll()] == ["card_003"]
            assert _types(one) == [("cards.created", "card_002"), ("cards.created", "card_003")]
        finally:
            await first.aclose()
            await second.aclose()


@_sync
async def test_the_loop_polls_each_interval_and_stops_handing_the_lease_back(
    store: Store,
) -> None:
    django = Django()
    django.add(_card(1))
    host = Host(_mapping({"entities": ["cards"], "interval": 5}), store)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 1:
            django.add(_card(2))
        await asyncio.sleep(0)

    assert host.mapping.serve.feed is not None
    feed = ChangeFeed(host, host.mapping.serve.feed, clock=Clock(), sleep=sleep,
                      transport=httpx.MockTransport(django.handle))  # fmt: skip
    feed.start()
    while len(waits) < 3:
        await asyncio.sleep(0.01)
    await feed.aclose()
    assert waits[:3] == [5, 5, 5]
    assert _types(store) == [("cards.created", "card_002")]
    state = store.feed_state("kanban-drf", "cards")
    assert state is not None and state.holder is None
