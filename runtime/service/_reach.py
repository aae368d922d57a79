"""What reading the upstream needs: the model, the client and the process's fan-out gate.

Reads, related records and the operation executors take this, not the whole state,
so the state can own them without a circular import.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from runtime.mapping import Mapping
from runtime.upstream import UpstreamClient


class Reach(Protocol):
    @property
    def mapping(self) -> Mapping: ...
    @property
    def upstream(self) -> UpstreamClient: ...
    @property
    def fanout(self) -> asyncio.Semaphore: ...
