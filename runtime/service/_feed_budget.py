"""The feed's spending: upstream requests counted at the transport, capped per minute."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import httpx

WINDOW = 60.0


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts every request the feed's own client sends (a retry is a request too)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.count = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.count += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Budget:
    """At most `per_minute` requests in any 60 s window of `clock` (monotonic seconds)."""

    def __init__(self, per_minute: int, clock: Callable[[], float]) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._spent: deque[float] = deque()

    def left(self) -> int:
        now = self._clock()
        while self._spent and self._spent[0] <= now - WINDOW:
            self._spent.popleft()
        return self.per_minute - len(self._spent)

    def spend(self, requests: int) -> None:
        now = self._clock()
        self._spent.extend([now] * requests)
