"""PocketBase's realtime protocol over the change feed: connections, subscriptions, fan-out.

One background task per process reads the feed's new changes from the store every
`interval` and offers each subscribed client the messages its topics take. The store is
the only channel: a change recorded by any process (its poller, or a write through it)
reaches the clients of every process, on SQLite and PostgreSQL alike, with no broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from runtime.mapping import Mapping
from runtime.protocol import ProtocolError, Violation
from runtime.store import FeedChange, Store

from ._realtime_client import QUEUE_SIZE, Client, frame
from ._realtime_topics import Topic, entity_part, parse_topic
from ._security import TOKEN_HEADERS, Security

log = logging.getLogger("a2app.runtime")

INTERVAL = 0.25  # seconds between reads of the store's new changes
HEARTBEAT = 30.0  # a comment line this often keeps proxies from closing an idle stream
MAX_AGE = 30 * 60.0  # PocketBase ends a connection after 30 minutes; the SDK reconnects
CLIENT_ID_MAX = 255
TOPICS_MAX = 1000
TOPIC_MAX = 2500
# what a subscription's credential is: the headers authorisation reads, and nothing else
CREDENTIAL_HEADERS = (*TOKEN_HEADERS, "origin")


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
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.host = host
        self.interval, self.heartbeat, self.max_age = interval, heartbeat, max_age
        self.queue_size = queue_size
        self.clients: dict[str, Client] = {}
        self.cursor = 0
        self._clock, self._sleep = clock, sleep
        self._running: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None

    @property
    def app_id(self) -> str:
        return self.host.mapping.app.id

    # -- connections ------------------------------------------------------------------

    def connect(self) -> Client:
        client = Client(size=self.queue_size)
        self.clients[client.id] = client
        return client

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
                    continue
                if text is None:
                    return
                yield text
        finally:
            client.drop()
            self.clients.pop(client.id, None)

    # -- subscriptions ----------------------------------------------------------------

    def subscribe(self, headers: dict[str, str], body: bytes) -> None:
        """`POST /api/realtime`: replace the client's topics, under the request's credential.

        Every topic is checked now, so a subscription never sits silent: an entity the
        credential may not read refuses the whole set (403 `insufficient_scope`, every such
        topic named), and so does one the change feed does not watch (400 `usage`)."""
        client_id, wanted = _checked_body(body)
        client = self.clients.get(client_id)
        if client is None or client.dropped:
            raise ProtocolError("usage", "Missing or invalid client id.", status=404)
        security = self.host.security
        security.authorize(headers, None, write=False)  # an unknown token is refused here
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
        client.topics = topics
        client.credential = {k: v for k, v in headers.items() if k in CREDENTIAL_HEADERS}

    @property
    def watched(self) -> frozenset[str]:
        """The entities whose changes enter the feed: those of `serve.feed` (polled, and
        written through the runtime); without it no change is ever recorded."""
        feed = self.host.mapping.serve.feed
        return frozenset(feed.entities if feed is not None else ()) & set(
            self.host.mapping.entities
        )

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
            key = (tuple(sorted(client.credential.items())), name)
            if key not in allowed:
                allowed[key] = self._may_read(dict(client.credential), name)
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
