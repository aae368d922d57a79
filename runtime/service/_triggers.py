"""Declared triggers (`serve.triggers`): the events a foreign app would raise if it could.

Each trigger's filter is read through the runtime's own reads (pushdown where proven,
every record checked here again), when the runtime starts and after each write made
through it; every matching record is one occurrence, stored once by its dedup key.
After a write the evaluation runs in the background, one at a time: writes that land
meanwhile are folded into one more pass, so a burst of writes costs two passes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping as AbcMapping
from typing import Any, Protocol

from runtime.mapping import Entity, Mapping, Problem, Trigger
from runtime.protocol import ProtocolError
from runtime.query import EntityResolver, compile_filter, parse_filter

from ._events import Plane, default_dedup_key, trigger

log = logging.getLogger("a2app.runtime")
PER_PAGE = 1000
# Seconds between two passes with nothing to prompt them (time moves a filter on @now).
RECHECK_SECONDS = 60.0


class Lister(Protocol):
    async def listing(self, entity: Entity, query: AbcMapping[str, str]) -> dict[str, Any]: ...


def trigger_problems(mapping: Mapping) -> list[Problem]:
    """Each trigger filter that does not parse or names what its entity does not declare."""
    problems = []
    for index, trig in enumerate(mapping.serve.triggers):
        entity = mapping.entities.get(trig.entity)
        if entity is None:  # a partial stamp withheld it: the trigger reads nothing
            continue
        try:
            resolver = EntityResolver(entity, mapping.entities)
            compile_filter(parse_filter(trig.filter), resolver, text=trig.filter)
        except ProtocolError as exc:
            problems.append(Problem(("serve", "triggers", index, "filter"), exc.message))
    return problems


def payload_of(trig: Trigger, record: AbcMapping[str, Any]) -> dict[str, Any]:
    if not trig.payload:
        return dict(record)
    return {"id": record.get("id"), **{name: record.get(name) for name in trig.payload}}


def dedup_key_of(trig: Trigger, payload: AbcMapping[str, Any]) -> str | None:
    """None: the default key, over the whole payload."""
    if not trig.dedup_key:
        return None
    keyed = {name: payload.get(name) for name in trig.dedup_key}
    return default_dedup_key(trig.type, trig.capability, keyed)


class Triggers:
    def __init__(self, plane: Plane, reads: Lister) -> None:
        self.plane, self.reads = plane, reads
        self._again = False
        self._running: asyncio.Task[None] | None = None
        self._ticking: asyncio.Task[None] | None = None

    @property
    def declared(self) -> tuple[Trigger, ...]:
        return self.plane.mapping.serve.triggers

    async def evaluate(self) -> int:
        """Read every trigger's matches now; the number of new occurrences."""
        new = 0
        for trig in self.declared:
            entity = self.plane.mapping.entities.get(trig.entity)
            if entity is None:
                continue
            for record in await self._matches(entity, trig.filter):
                payload = payload_of(trig, record)
                raised = trigger(
                    self.plane, trig.type, payload, trig.capability, dedup_key_of(trig, payload)
                )
                new += raised.new
        return new

    async def _matches(self, entity: Entity, filter_text: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        page = 1
        while True:
            query = {"filter": filter_text, "perPage": str(PER_PAGE), "page": str(page),
                     "skipTotal": "true"}  # fmt: skip
            items = (await self.reads.listing(entity, query))["items"]
            found += items
            if len(items) < PER_PAGE:
                return found
            page += 1

    async def at_start(self) -> None:
        """The first pass, before the runtime serves; an upstream that cannot answer now
        delays the events to the next write, it does not stop the runtime."""
        if not self.declared:
            return
        try:
            count = await self.evaluate()
        except ProtocolError as exc:
            log.warning("triggers not evaluated at start: %s (%s)", exc.message, exc.code)
            return
        log.info("triggers raised %d new occurrences at start", count)

    def every(self, seconds: float = RECHECK_SECONDS) -> None:
        """Look again every `seconds` while serving: a filter on time (`due <= @todayEnd`)
        starts matching as the clock turns, with no write or change to prompt a pass."""
        if self.declared and self._ticking is None:
            self._ticking = asyncio.create_task(self._tick(seconds))

    async def _tick(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            self.after_write()

    def after_write(self) -> None:
        """One more pass, folded into the one under way if there is one."""
        if not self.declared:
            return
        self._again = True
        if self._running is None or self._running.done():
            self._running = asyncio.create_task(self._drain())

    async def settled(self) -> None:
        """Wait for the passes under way (for a caller that must see their events)."""
        while self._running is not None and not self._running.done():
            await asyncio.shield(self._running)

    async def _drain(self) -> None:
        while self._again:
            self._again = False
            try:
                await self.evaluate()
            except ProtocolError as exc:
                log.warning("triggers not evaluated after a write: %s (%s)", exc.message, exc.code)
            except Exception:
                log.exception("triggers failed after a write")

    async def aclose(self) -> None:
        if self._ticking is not None:
            self._ticking.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._ticking
        if self._running is not None:
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._running
