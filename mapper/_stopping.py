"""SIGTERM, SIGHUP and Ctrl-C end a command that runs children through its `finally` blocks.

The first signal raises `Interrupted` where the command is, so every child
it started is stopped on the way out; later signals are noted and ignored, so
that the stopping itself is never cut short.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class Interrupted(BaseException):
    """A stop signal arrived; BaseException, so no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class Stopper:
    def __init__(self) -> None:
        self.signum: int | None = None
        self._deferred = 0
        self._closing = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Stopper:
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Hold a signal back while a child is started and recorded, then raise it."""
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1
        if self.signum is not None and not self._deferred and not self._closing:
            raise Interrupted(self.signum)

    def closing(self) -> None:
        """From now on signals are only noted: the children are being stopped."""
        self._closing = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
        if first and not self._deferred and not self._closing:
            raise Interrupted(signum)
