"""Everything a request needs, built once when an app is served."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from runtime.mapping import Mapping, Withheld
from runtime.protocol import schema_version
from runtime.store import Store
from runtime.upstream import UpstreamClient

from ._calls import call_http
from ._clock import Clock, SystemClock
from ._describer import Describer
from ._fanout import process_gate
from ._feed import ChangeFeed
from ._jobs import JobRunner
from ._rates import SharedWindows
from ._reads import Reads
from ._realtime import Realtime
from ._security import RateLimiter, Security
from ._triggers import Triggers


@dataclass(slots=True)
class RuntimeState:
    mapping: Mapping
    store: Store
    upstream: UpstreamClient
    unverified: bool = False
    reads_only: bool = False  # a read-only stamp: writes were never proven
    withheld: Withheld = field(default_factory=Withheld)  # what a partial stamp refused
    audit_file: Path | None = None
    fanout: asyncio.Semaphore = field(default_factory=process_gate)
    clock: Clock = field(default_factory=SystemClock)  # what schedules read and wait on
    shared_windows: SharedWindows | None = None  # rate windows in Redis (`serve --redis`)
    security: Security = field(init=False)
    limiter: RateLimiter = field(init=False)
    schema_version: str = field(init=False)
    describer: Describer = field(init=False)
    reads: Reads = field(init=False)
    jobs: JobRunner = field(init=False)
    triggers: Triggers = field(init=False)
    feed: ChangeFeed | None = field(init=False)  # with `serve.feed` only
    realtime: Realtime = field(init=False)

    def __post_init__(self) -> None:
        app_id = self.mapping.app.id
        self.security = Security(
            self.mapping,
            lambda token: self.store.find_grant(token, app_id),
            lambda grant_id: self.store.active_grant(grant_id, app_id),
        )
        limits = self.mapping.serve.rate_limits
        self.limiter = RateLimiter(
            {"data": limits.data, "ops": limits.ops}, app_id=app_id, shared=self.shared_windows
        )
        # The mapping is frozen for the life of the process, so the fingerprint is too.
        self.schema_version = schema_version(self.mapping)
        self.describer = Describer()
        self.reads = Reads(self)
        self.triggers = Triggers(self, self.reads)
        # a job that changed data is a write too: the triggers look again
        self.jobs = JobRunner(
            self.store, app_id, partial(call_http, self), self.triggers.after_write
        )
        self.realtime = Realtime(self)
        feed = self.mapping.serve.feed
        # a change this process records reaches its own subscribers at once
        self.feed = None if feed is None else ChangeFeed(self, feed, recorded=self.realtime.wake)

    def start_feed(self) -> None:
        """Poll in the background from now on (after the first trigger pass), and fan the
        feed's changes out to realtime subscribers; without a feed no change is recorded,
        so there is nothing to fan out (every topic is refused as unwatched)."""
        if self.feed is not None:
            self.feed.start()
            self.realtime.start()

    async def aclose(self) -> None:
        """Stop the realtime fan-out (ending every stream), the feed, the jobs and trigger
        passes this process runs, then the upstream's connections."""
        await self.realtime.aclose()
        if self.feed is not None:
            await self.feed.aclose()
        await self.jobs.aclose()
        await self.triggers.aclose()
        await self.upstream.aclose()

    def close(self) -> None:
        self.store.close()
