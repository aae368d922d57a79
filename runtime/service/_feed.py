"""The change feed (`serve.feed`): what changed in the app, also when not through the runtime.

Every interval each feed entity is walked through the runtime's own reads and compared
with the store's snapshot; each change is stored, raised as `<entity>.created|updated|
deleted`, and checked against the entity's declared triggers. One process polls an entity
at a time (the store's lease); every process serves the events, which are in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from runtime.mapping import Entity, Feed, Mapping
from runtime.protocol import ProtocolError
from runtime.store import FeedAction, FeedChange, Seen, Store
from runtime.upstream import UpstreamClient

from ._event_types import feed_event_type
from ._events import trigger
from ._feed_budget import Budget, CountingTransport
from ._feed_diff import diff, is_marked, record_hash
from ._feed_triggers import check_triggers
from ._feed_walk import Walk, modified_field, walk
from ._reads import Reads
from ._triggers import Triggers

log = logging.getLogger("a2app.runtime")

FULL_EVERY = 10  # a newest-first entity still gets a complete walk every 10th poll: deletes
EVENT_KEY = "feed:"  # + the change's seq: the dedup key of its event
UNCHANGED = "unchanged: the listing answered 304 to the ETag of the last complete walk"


class Host(Protocol):
    """What the feed needs of the runtime: the model, the store, the fan-out gate, triggers."""

    @property
    def mapping(self) -> Mapping: ...
    @property
    def store(self) -> Store: ...
    @property
    def fanout(self) -> asyncio.Semaphore: ...
    @property
    def triggers(self) -> Triggers: ...


@dataclass(frozen=True, slots=True)
class _Reach:
    """The feed reads through its own client, so it counts exactly its own requests."""

    mapping: Mapping
    upstream: UpstreamClient
    fanout: asyncio.Semaphore


def event_of(change: FeedChange) -> tuple[str, dict[str, Any]]:
    """The event type and payload of a change: `cards.updated`, {id, record}."""
    payload: dict[str, Any] = {"id": change.record_id}
    if change.action != "delete":
        payload["record"] = change.record
    return feed_event_type(change.entity, change.action), payload


class ChangeFeed:
    def __init__(
        self,
        host: Host,
        feed: Feed,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        interval: float | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        recorded: Callable[[], None] = lambda: None,
    ) -> None:
        self.host, self.feed = host, feed
        # told whenever this process records a change (a poll's or a write's)
        self.recorded = recorded
        self.interval = feed.interval if interval is None else interval
        self.holder = "feed_" + secrets.token_hex(8)
        self.counter = CountingTransport(transport or httpx.AsyncHTTPTransport())
        mapping = host.mapping
        self.upstream = UpstreamClient(mapping.upstream, transport=self.counter)
        self.reads = Reads(_Reach(mapping, self.upstream, host.fanout))
        self.budget = Budget(feed.budget, clock)
        self._sleep = sleep
        self._walks: dict[str, Walk] = {}
        # entity -> the ETag of the whole listing its last recorded complete walk read
        self._tags: dict[str, str] = {}
        self._polls: dict[str, int] = {}
        self._running: asyncio.Task[None] | None = None
        unread = [n for n in feed.entities if n not in mapping.entities]
        if unread:
            # a partial stamp withheld them: what is not served is not watched either
            log.warning("feed does not watch %s: not served", ", ".join(unread))

    @property
    def app_id(self) -> str:
        return self.host.mapping.app.id

    @property
    def lease_seconds(self) -> float:
        # long enough to outlive a slow poll, short enough that a dead holder is replaced
        return max(3 * self.interval, 30.0)

    def raise_unraised(self) -> int:
        """Raise the events of changes recorded without them (a process stopped in between);
        how many."""
        missed = self.host.store.feed_unraised(self.app_id, EVENT_KEY)
        for name in {c.entity for c in missed}:
            entity = self.host.mapping.entities.get(name)
            if entity is not None:
                self._raise(entity, [c for c in missed if c.entity == name])
        return len(missed)

    async def poll(self) -> list[FeedChange]:
        """One poll of every feed entity this process holds the lease of; the changes."""
        changes: list[FeedChange] = []
        for name in self.feed.entities:
            entity = self.host.mapping.entities.get(name)
            if entity is None:  # withheld by a partial stamp: nothing to read
                continue
            try:
                changes += await self.poll_entity(entity)
            except ProtocolError as exc:
                self._walks.pop(name, None)
                log.warning("feed of %s not polled: %s (%s)", name, exc.message, exc.code)
        return changes

    async def poll_entity(self, entity: Entity) -> list[FeedChange]:
        store, name = self.host.store, entity.name

        def keep() -> bool:
            return store.feed_lease(self.app_id, name, self.holder, self.lease_seconds)

        if not keep():
            return []  # another process polls it now
        state = store.feed_state(self.app_id, name)
        baselined = state is not None and state.baseline_at is not None
        progress = self._walks.get(name)
        if progress is None:
            progress = self._start_walk(entity, baselined)
            if await self._unchanged(entity, progress, baselined):
                store.feed_note(self.app_id, name, UNCHANGED)
                return []
        self._walks[name] = progress
        snapshot = store.feed_snapshot(self.app_id, name)
        done = await walk(self.reads, entity, progress, self.budget, self.counter, snapshot, keep)
        if progress.lost:
            del self._walks[name]
            log.info("feed of %s: another process took the lease mid-walk", name)
            return []
        if not done:
            note = (
                f"walk stopped at page {progress.page} by the budget of {self.feed.budget} "
                "requests per minute; it resumes at the next poll"
            )
            log.info("feed of %s: %s", name, note)
            store.feed_note(self.app_id, name, note)
            if not baselined:
                return []
            # what was read so far is news already; absences wait for a complete walk
            return self._record(entity, diff(snapshot, progress.records, complete=False))
        del self._walks[name]
        if not baselined:
            store.feed_baseline(self.app_id, name, {i: h for i, (h, _) in progress.records.items()})
            store.feed_note(self.app_id, name, f"baseline of {len(progress.records)} records")
            self._keep_tag(name, progress)
            return []
        store.feed_note(self.app_id, name, None)
        seen = diff(snapshot, progress.records, complete=not progress.sort)
        confirmed, deferred = await self._confirmed(entity, seen)
        recorded = self._record(entity, confirmed)
        if not deferred:  # a delete left for the next complete walk: that walk must run
            self._keep_tag(name, progress)
        return recorded

    async def _unchanged(self, entity: Entity, progress: Walk, baselined: bool) -> bool:
        """Before a complete walk of an entity whose listing's ETag the stamp proved: ask
        the listing with the tag of the last recorded walk (`If-None-Match`). True when
        answered 304: the whole listing is as that walk read it, deletes included, and
        this walk is skipped. Otherwise the walk carries the new tag, kept once recorded
        (`_keep_tag`), and only when it tags the whole listing (no page follows it)."""
        if progress.sort or entity.name not in self.feed.etags or self.budget.left() < 1:
            return False  # (the verifier proves no ETag of a listing by POST)
        known = self._tags.pop(entity.name, None) if baselined else None
        before = self.counter.count
        tag = await self.upstream.listing_tag(entity, known)
        self.budget.spend(self.counter.count - before)
        if tag.unchanged and known is not None:
            self._tags[entity.name] = known
            return True
        progress.tag = tag if tag.whole and tag.etag else None
        return False

    def _keep_tag(self, name: str, progress: Walk) -> None:
        if progress.tag is not None and progress.tag.etag is not None and not progress.sort:
            self._tags[name] = progress.tag.etag

    async def _confirmed(self, entity: Entity, seen: list[Seen]) -> tuple[list[Seen], bool]:
        """Deletes looked up once before they are believed: a record deleted while the walk
        paged shifts the others, so a complete walk can still miss one that exists. One the
        budget cannot pay for now stays in the snapshot, for the next complete walk (the
        second value: whether any did)."""
        kept: list[Seen] = []
        deferred = False
        for change in seen:
            if change.action == "delete":
                if self.budget.left() < 1:
                    deferred = True
                    continue
                before = self.counter.count
                found = await self.upstream.get_record(entity, change.record_id)
                self.budget.spend(self.counter.count - before)
                if found is not None:
                    continue
            kept.append(change)
        return kept, deferred

    def _start_walk(self, entity: Entity, baselined: bool) -> Walk:
        """Newest first where the stamp proved a modified field (served unverified, never),
        except for the baseline, which needs every record, and every `FULL_EVERY`th poll,
        which looks for deletes."""
        count = self._polls.get(entity.name, 0) + 1
        self._polls[entity.name] = count
        newest_first = modified_field(entity, self.feed)
        if newest_first is None or not baselined or count % FULL_EVERY == 0:
            return Walk()
        return Walk(sort="-" + newest_first)

    def _record(self, entity: Entity, seen: list[Seen]) -> list[FeedChange]:
        if not seen:
            return []
        changes = self.host.store.feed_record(self.app_id, entity.name, seen)
        self._raise(entity, changes)
        if changes:
            self.recorded()
        return changes

    def _raise(self, entity: Entity, changes: list[FeedChange]) -> None:
        again = False
        for change in changes:
            type, payload = event_of(change)
            # the change's seq keys its event: raised once, whichever process raises it
            trigger(self.host, type, payload, dedup_key=f"{EVENT_KEY}{change.seq}")
            again |= check_triggers(self.host, entity, change)
        if again:
            self.host.triggers.after_write()

    def written(self, name: str, action: FeedAction, record_id: str, record: Any) -> None:
        """A write made through the runtime: into the feed at once, and into the snapshot,
        so the next poll does not report it again."""
        entity = self.host.mapping.entities.get(name)
        if entity is None or name not in self.feed.entities:
            return
        if record is not None and is_marked(record):
            return
        state = self.host.store.feed_state(self.app_id, entity.name)
        if state is None or state.baseline_at is None:
            return  # the baseline, when taken, holds it
        if action == "delete":
            seen = Seen("delete", record_id, None)
        else:
            seen = Seen(action, record_id, record_hash(record), record)
        self._record(entity, [seen])

    def start(self) -> None:
        self._running = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        try:
            self.raise_unraised()
        except Exception:
            log.exception("feed events not recovered")
        while True:
            try:
                await self.poll()
            except Exception:
                log.exception("feed poll failed")
            await self._sleep(self.interval)

    async def aclose(self) -> None:
        if self._running is not None:
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._running
        for name in self.feed.entities:
            with contextlib.suppress(Exception):
                self.host.store.feed_release(self.app_id, name, self.holder)
        await self.upstream.aclose()
