"""Bounded fan-out: the upstream reads one request starts, a few at a time.

Ref checks, receipt labels, expand and relation labels each read many records by
id. Unbounded, one request naming a thousand ids holds every pooled connection and
every other request waits behind it; so each set of reads runs at most `PER_CALL`
at a time, and all of them together at most `PER_PROCESS` (the pool keeps the
rest for requests that make one read).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

T = TypeVar("T")

PER_CALL = 8
PER_PROCESS = 32


def process_gate() -> asyncio.Semaphore:
    return asyncio.Semaphore(PER_PROCESS)


async def bounded(shared: asyncio.Semaphore, reads: Iterable[Awaitable[T]]) -> list[T]:
    """Await every read, in order, at most `PER_CALL` at once and within `shared`."""
    mine = asyncio.Semaphore(PER_CALL)

    async def one(read: Awaitable[T]) -> T:
        async with mine, shared:
            return await read

    return list(await asyncio.gather(*(one(read) for read in reads)))
