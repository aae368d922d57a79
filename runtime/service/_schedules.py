"""Operation schedules: the runtime calls a scheduled operation itself, once per slot.

A slot is claimed by raising the event `operation.scheduled` keyed
`schedule:<operation>:<slot>`: the store keeps one event per (app, key), so of all the
processes serving the app, the one whose insert wins runs the slot and the others skip
it. The claim comes before the call, so a process that dies between the two leaves the
slot claimed and not run: at most once per slot, exactly once while the claimant lives.

The call is `POST /api/ops/{name}`'s own path (guard, upstream, receipt, audit) made
with the `schedule` caller and no arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

from runtime.mapping import Operation
from runtime.protocol import ProtocolError, schedule_caller

from ._events import trigger
from ._operations import run_operation
from ._slots import latest_slot, next_slot, slot_name, zone_named
from ._state import RuntimeState

log = logging.getLogger("a2app.runtime")
SCHEDULE_EVENT = "operation.scheduled"


def _no_precheck() -> None:
    return None


class Schedules:
    def __init__(self, state: RuntimeState) -> None:
        self._state = state
        self._zone = zone_named(state.mapping.serve.time_zone)
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def declared(self) -> tuple[Operation, ...]:
        return tuple(op for op in self._state.mapping.operations if op.schedule is not None)

    def start(self) -> None:
        """One background task per scheduled operation, all from the clock's now."""
        now = self._state.clock.now()
        if self.declared:
            names = ", ".join(
                f"{op.name} ({op.schedule.when})" for op in self.declared if op.schedule
            )
            log.info("schedules in %s: %s", self._state.mapping.serve.time_zone, names)
        for op in self.declared:
            task = asyncio.create_task(self._run(op, now), name=f"schedule:{op.name}")
            self._tasks.append(task)

    async def _run(self, op: Operation, now: datetime) -> None:
        assert op.schedule is not None
        when, clock = op.schedule.when, self._state.clock
        if op.schedule.on_missed == "run":
            # unclaimed means no process ran it: the runtime was down at the time
            await self.run_slot(op, latest_slot(when, self._zone, now))
        while True:
            slot = next_slot(when, self._zone, now)
            while (now := clock.now()) < slot:
                await clock.sleep((slot - now).total_seconds())
            # After a long stall (a suspended host) several slots may have passed: only
            # the latest runs, as after a restart, rather than a burst of stale calls.
            await self.run_slot(op, latest_slot(when, self._zone, now))

    async def run_slot(self, op: Operation, slot: datetime) -> bool:
        """Claim `slot` and, when this process won it, make the call; True if it ran here."""
        name = slot_name(slot)
        try:
            claim = trigger(
                self._state, SCHEDULE_EVENT, {"operation": op.name, "slot": name},
                dedup_key=f"schedule:{op.name}:{name}",
            )  # fmt: skip
        except Exception:
            # a store that cannot answer now loses this slot, not the schedule
            log.exception("scheduled %s at %s not claimed", op.name, name)
            return False
        if not claim.new:
            return False
        try:
            await run_operation(
                self._state, {}, op, b"{}", precheck=_no_precheck,
                caller=schedule_caller(self._state.mapping),
            )  # fmt: skip
        except ProtocolError as exc:
            # refused or failed upstream: audited by the chain; the next slot tries again
            log.warning("scheduled %s at %s: %s (%s)", op.name, name, exc.message, exc.code)
        except Exception:
            log.exception("scheduled %s at %s failed", op.name, name)
        return True

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
