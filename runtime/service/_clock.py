"""Server time as the protocol writes it, and the clock background work waits on."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """What a schedule reads and waits on; tests pass one that moves at will."""

    def now(self) -> datetime: ...
    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def server_now() -> str:
    """ISO-8601 UTC with milliseconds and `Z`: `2026-07-30T09:15:00.000Z`."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def wire_time(moment: datetime) -> str:
    """A stored instant as the protocol writes it (as `server_now`)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def tz_offset_minutes() -> int:
    """The server's local zone, minutes east of UTC."""
    offset = datetime.now().astimezone().utcoffset()
    return int(offset.total_seconds() // 60) if offset is not None else 0
