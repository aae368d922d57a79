"""PocketBase's realtime protocol over the change feed: connections, subscriptions, fan-out.

One background task per process reads the feed's new changes from the store every
`interval` and offers each subscribed client the messages its topics take. The store is
the only channel: a change recorded by any process (its poller, or a write through it)
reaches the clients of every process, on SQLite and PostgreSQL alike, with no broker.

Subscriptions cross processes the same way: a `POST` taken by any process writes the
client's set to the store, and the process holding the client's stream reads the sets
written for its clients at each tick (one query for all of them) and applies them, so
no load balancer has to route a client's stream and its `POST` to one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any, Protocol

from runtime.mapping import Mapping
from runtime.protocol import ProtocolError, Violation
from runtime.store import FeedChange, RealtimeCallerError, RealtimeSet, Store

from ._realtime_client import QUEUE_SIZE, Client, frame
from ._realtime_topics import Topic, entity_part, parse_topic
from ._security import Security

log = logging.getLogger("a2app.runtime")

INTERVAL = 0.25  # seconds between reads of the store's new changes
HEARTBEAT = 30.0  # a comment line this often keeps proxies from closing an idle stream
MAX_AGE = 30 * 60.0  # PocketBase ends a connection after 30 minutes; the SDK reconnects
CLIENT_ID_MAX = 255
TOPICS_MAX = 1000
TOPIC_MAX = 2500
BEAT = 15.0  # seconds between a process's heartbeats in the store, keeping its clients known
EXPIRY = 60.0  # a process not seen for this long is gone: its clients are swept
# Callers with no credential, whose set a credentialled caller may take over (PocketBase
# allows only that change, guest to authenticated). Authorisation serves a request without
# a credential as `anonymous` on a single-user app only; on a multi-user app every POST
# carries one, and a client's set is replaced only under the credential that wrote it.
GUESTS = ("anonymous",)


class Host(Protocol):
    @property
    def mapping(self) -> Mapping: ...
    @property
    def store(self) -> Store: ...
    @property
    def security(self) -> Security: ...


class Realtime:
    def __init__(
        self,
        host: Host,
        *,
        interval: float = INTERVAL,
        heartbeat: float = HEARTBEAT,
        max_age: float = MAX_AGE,
        queue_size: int = QUEUE_SIZE,
        beat: float = BEAT,
        expiry: float = EXPIRY,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.host = host
        self.interval, self.heartbeat, self.max_age = interval, heartbeat, max_age
        self.queue_size = queue_size
        self.beat, self.expiry = beat, timedelta(seconds=expiry)
        self.clients: dict[str, Client] = {}
        self.cursor = 0
        # this process's fan-out in the store: the holder of its clients' streams
        self.holder = secrets.token_hex(16)
        self.applied = 0  # the newest revision of a set read back from the store
        self._held = False
        self._beat_at = 0.0
        self._clock, self._sleep = clock, sleep
        self._running: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None

    @property
    def app_id(self) -> str:
        return self.host.mapping.app.id

    # -- connections ------------------------------------------------------------------

    def connect(self) -> Client:
        """A new client, known in the store before its id is sent, so that a POST taken
        by any process finds it."""
        self._hold()
        # due when no fan-out task beats (no feed) and no stream did for a while
        self.keep_alive()
        client = Client(size=self.queue_size)
        self.host.store.realtime_open(self.holder, self.app_id, client.id)
        self.clients[client.id] = client
        return client

    def _hold(self) -> None:
        if not self._held:
            self.host.store.realtime_hold(self.holder, self.app_id)
            self._held = True
            self._beat_at = self._clock() + self.beat

    def keep_alive(self) -> None:
        """The heartbeat, when due: refreshes this process's row (so its clients stay known)
        and sweeps the rows of processes not seen for `expiry`. If this process was swept
        itself (it stalled that long), its clients are unknown to the others: their streams
        end, and the SDK reconnects and subscribes again."""
        if not self._held or self._clock() < self._beat_at:
            return
        self._beat_at = self._clock() + self.beat
        if self.host.store.realtime_beat(self.holder, self.expiry):
            return
        log.warning("realtime: this process was not seen for %s; its streams end", self.expiry)
        for client in list(self.clients.values()):
            client.drop()
        self._held = False
        self._hold()

    async def stream(self, client: Client) -> AsyncIterator[str]:
        """The client's frames: PB_CONNECT, then its messages and heartbeats, until it is
        dropped, `max_age` has passed, or the connection goes (the caller stops iterating)."""
        try:
            yield client.connect_frame()
            ends = self._clock() + self.max_age
            while (left := ends - self._clock()) > 0:
                try:
                    text = await asyncio.wait_for(client.queue.get(), min(self.heartbeat, left))
                except TimeoutError:
                    if self._clock() < ends:
                        yield ":\n\n"
                    # streams beat for a process whose fan-out task is not running
                    self._keep_alive_logged()
                    continue
                if text is None:
                    return
                yield text
        finally:
            client.drop()
            self.clients.pop(client.id, None)
            try:
                self.host.store.realtime_close(self.app_id, [client.id])
            except Exception:
                # the row stays until a POST for it shows it to this process's pick-up,
                # or this process stops or is swept
                log.exception("realtime: the closed stream's row was not removed")

    def _keep_alive_logged(self) -> None:
        try:
            self.keep_alive()
        except Exception:
            log.exception("realtime heartbeat failed")

    # -- subscriptions ----------------------------------------------------------------

    def subscribe(self, headers: dict[str, str], body: bytes) -> None:
        """`POST /api/realtime`: replace the client's topics, under the request's credential.

        A set written under another credential is refused first (403
        `realtime_auth_mismatch`), whatever the topics, as PocketBase does. Then every
        topic is checked, so a subscription never sits silent: an entity the credential
        may not read refuses the whole set (403 `insufficient_scope`, every such topic
        named), and so does one the change feed does not watch (400 `usage`)."""
        client_id, wanted = _checked_body(body)
        if not self._is_live(client_id):
            raise ProtocolError("usage", "Missing or invalid client id.", status=404)
        security = self.host.security
        # an unknown token is refused here
        caller = security.authorize(headers, None, write=False)
        upgrades = GUESTS if caller.credentialled else ()
        # read ahead of the topic checks; the store's write below still decides a race
        if not self.host.store.realtime_may_replace(
            self.app_id,
            client_id,
            caller_kind=caller.kind,
            credential_id=caller.credential_id,
            upgrades=upgrades,
        ):
            raise ProtocolError("realtime_auth_mismatch")
        raws = list(dict.fromkeys(wanted))
        # one authorisation per entity, not per topic: a thousand topics cost a few look-ups
        entities = {entity_part(raw) for raw in raws}
        unreadable = sorted(name for name in entities if not self._may_read(headers, name))
        refused = [raw for raw in raws if entity_part(raw) in unreadable]
        if refused:
            raise ProtocolError(
                "insufficient_scope",
                f"This credential cannot read {', '.join(unreadable)}: {len(refused)} topic(s) "
                "refused.",
                required=[f"data:{name}:read" for name in unreadable],
                topics=refused,
            )
        topics = tuple(parse_topic(raw, self.host.mapping.entities) for raw in raws)
        unwatched = sorted({t.entity.name for t in topics} - self.watched)
        if unwatched:
            # nothing would ever be delivered: said now rather than left silent
            raise ProtocolError(
                "usage",
                f"{', '.join(unwatched)} is not watched by the change feed (serve.feed); "
                f"realtime delivers changes of {', '.join(sorted(self.watched)) or 'no entity'}.",
                unwatched=unwatched,
            )
        # the one store write of a POST: the set, and who subscribed (never the token)
        try:
            rev = self.host.store.realtime_subscribe(
                self.app_id,
                client_id,
                raws,
                caller_kind=caller.kind,
                credential_id=caller.credential_id,
                upgrades=upgrades,
                expiry=self.expiry,
            )
        except RealtimeCallerError:
            raise ProtocolError("realtime_auth_mismatch") from None
        if rev is None:  # the stream ended meanwhile
            raise ProtocolError("usage", "Missing or invalid client id.", status=404)
        client = self.clients.get(client_id)
        if client is not None and rev > client.rev:
            # held here: applied now, not at the next tick
            client.topics, client.caller, client.rev = (
                topics,
                (caller.kind, caller.credential_id),
                rev,
            )

    def _is_live(self, client_id: str) -> bool:
        """A client with a live stream: held here, or by a process seen within `expiry`."""
        client = self.clients.get(client_id)
        if client is not None:
            return not client.dropped
        return self.host.store.realtime_holder_of(self.app_id, client_id, self.expiry) is not None

    def pick_up(self) -> int:
        """Apply the sets written for this process's clients since the last read, by any
        process; how many were read. One query, whatever the number of clients."""
        if not self._held:
            return 0
        sets = self.host.store.realtime_sets(self.holder, self.applied)
        gone = []
        for found in sets:
            self.applied = max(self.applied, found.rev)
            client = self.clients.get(found.client_id)
            if client is None or client.dropped:
                gone.append(found.client_id)
            elif found.rev > client.rev:
                self._apply(client, found)
        if gone:
            # a stream that ended while its row could not be removed
            self.host.store.realtime_close(self.app_id, gone)
        return len(sets)

    def _apply(self, client: Client, found: RealtimeSet) -> None:
        try:
            topics = tuple(parse_topic(raw, self.host.mapping.entities) for raw in found.topics)
        except ProtocolError as exc:
            # checked by the process that took the POST: only a process serving another
            # mapping gets here; the stream ends and the SDK subscribes again
            log.warning(
                "realtime: a subscription written elsewhere is refused here: %s", exc.message
            )
            client.drop()
            return
        client.topics, client.rev = topics, found.rev
        client.caller = (found.caller_kind or "", found.credential_id or "")

    @property
    def watched(self) -> frozenset[str]:
        """The entities whose changes enter the feed: those of `serve.feed` (polled, and
        written through the runtime); without it no change is ever recorded."""
        feed = self.host.mapping.serve.feed
        return frozenset(feed.entities if feed is not None else ()) & set(
            self.host.mapping.entities
        )

    def _caller_may_read(self, caller: tuple[str, str] | None, entity: str) -> bool:
        """Whether the caller who subscribed may still read `entity` (its grant not revoked)."""
        if entity not in self.host.mapping.entities:
            return True
        if caller is None:
            return False
        now = self.host.security.recall(*caller)
        return now is not None and now.can_read(entity)

    def _may_read(self, headers: dict[str, str], entity: str) -> bool:
        if entity not in self.host.mapping.entities:
            return True  # refused as unknown by parsing, with its own code
        try:
            self.host.security.authorize(headers, f"data:{entity}:read", write=False)
        except ProtocolError as exc:
            if exc.is_("insufficient_scope", "agent_token_required", "forbidden_origin"):
                return False
            raise
        return True

    # -- fan-out ----------------------------------------------------------------------

    def start_at_head(self) -> None:
        """Only what is recorded from now on is news to a subscriber."""
        self.cursor = self.host.store.feed_head(self.app_id)

    def start(self) -> None:
        self.start_at_head()
        self._hold()
        self._wake = asyncio.Event()
        self._running = asyncio.create_task(self._loop())

    def wake(self) -> None:
        """A change this process just recorded: read the store now, not at the next interval."""
        if self._wake is not None:
            self._wake.set()

    async def _loop(self) -> None:
        while True:
            try:
                self.pump()
            except Exception:
                log.exception("realtime fan-out failed")
            self._keep_alive_logged()
            await self._nap()

    async def _nap(self) -> None:
        """Until the interval is over, or a write of this process wakes the loop; another
        process's changes reach it through the store at the next interval."""
        assert self._wake is not None
        naps = [
            asyncio.ensure_future(self._sleep(self.interval)),
            asyncio.ensure_future(self._wake.wait()),
        ]
        try:
            await asyncio.wait(naps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for nap in naps:
                nap.cancel()
            self._wake.clear()

    def pump(self) -> int:
        """Deliver the changes recorded since the last call; how many were read."""
        read = 0
        while True:
            changes = self.host.store.feed_changes_since(self.app_id, self.cursor)
            # the sets are read after the changes: a change recorded after a POST was
            # answered (wherever it was taken) meets the set that POST wrote
            self.pick_up()
            if not changes:
                return read
            self.cursor = changes[-1].seq
            read += len(changes)
            self.deliver(changes)

    def deliver(self, changes: list[FeedChange]) -> None:
        """Offer each change to every client whose topics take it, never waiting on one."""
        clients = [c for c in self.clients.values() if c.topics and not c.dropped]
        # a credential revoked since it subscribed ends the stream: checked once a batch,
        # and once per credential and entity (a thousand clients may share one token)
        allowed: dict[tuple[Any, str], bool] = {}

        def may_read(client: Client, name: str) -> bool:
            key = (client.caller, name)
            if key not in allowed:
                allowed[key] = self._caller_may_read(client.caller, name)
            return allowed[key]

        for client in clients:
            names = {t.entity.name for t in client.topics} & {c.entity for c in changes}
            if any(not may_read(client, name) for name in names):
                client.drop()
        for change in changes:
            takers = [c for c in clients if not c.dropped and _wants(c.topics, change)]
            if not takers:
                continue
            record = self._record_of(change)
            for client in takers:
                for topic in client.topics:
                    message = _message(topic, change, record)
                    if message is not None and not client.offer(
                        frame(client.id, topic.raw, message)
                    ):
                        log.info("realtime client dropped: its queue of %d is full", client.size)
                        break

    def _record_of(self, change: FeedChange) -> dict[str, Any]:
        if change.action != "delete":
            return dict(change.record)
        was = self.host.store.feed_last_record(
            self.app_id, change.entity, change.record_id, change.seq
        )
        return dict(was) if isinstance(was, dict) else {"id": change.record_id}

    async def aclose(self) -> None:
        if self._running is not None:
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._running
        for client in list(self.clients.values()):
            client.drop()
        if self._held:
            self._held = False
            try:
                self.host.store.realtime_release(self.holder)
            except Exception:
                log.exception("realtime: this process's rows were not removed; they expire")


def _wants(topics: tuple[Topic, ...], change: FeedChange) -> bool:
    return any(t.entity.name == change.entity for t in topics)


def _message(topic: Topic, change: FeedChange, record: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return topic.message(change, record)
    except ProtocolError as exc:
        # a value the filter cannot compare (say a field the record lacks): not taken
        log.info("realtime topic %r skipped a change: %s", topic.raw, exc.message)
        return None


def _checked_body(body: bytes) -> tuple[str, list[str]]:
    """`{clientId, subscriptions}`, every violation refused in one 400."""
    try:
        doc = json.loads(body or b"{}")
    except ValueError:
        raise ProtocolError("invalid_json", "The body is not JSON.") from None
    if not isinstance(doc, dict):
        raise ProtocolError("invalid_json")
    problems: list[Violation] = []
    client_id = doc.get("clientId")
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= CLIENT_ID_MAX:
        problems.append(Violation(
            "invalid_string", "clientId", f"text of 1 to {CLIENT_ID_MAX} characters", client_id
        ))  # fmt: skip
    wanted = doc.get("subscriptions", [])
    if wanted is None:
        wanted = []
    if not isinstance(wanted, list):
        problems.append(Violation("usage", "subscriptions", "a list of topics", wanted))
        wanted = []
    if len(wanted) > TOPICS_MAX:
        problems.append(
            Violation("usage", "subscriptions", f"at most {TOPICS_MAX} topics", len(wanted))
        )
    for i, topic in enumerate(wanted):
        # a line break would end the SSE field the topic is sent back in
        if not isinstance(topic, str) or not 1 <= len(topic) <= TOPIC_MAX or _breaks(topic):
            problems.append(Violation(
                "invalid_string", f"subscriptions.{i}",
                f"a topic of 1 to {TOPIC_MAX} characters on one line", topic,
            ))  # fmt: skip
    if problems:
        raise ProtocolError(
            "usage",
            f"The subscription is refused: {len(problems)} problem(s).",
            violations=[p.as_dict() for p in problems],
        )
    assert isinstance(client_id, str)
    return client_id, [str(t) for t in wanted]


def _breaks(topic: str) -> bool:
    return "\n" in topic or "\r" in topic
