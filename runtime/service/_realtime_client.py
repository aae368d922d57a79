"""One realtime connection: its id, its topics, its credential and its bounded queue of frames.

The queue is bounded so that a client that reads slowly costs a fixed amount of memory:
when it is full the client is dropped (its stream ends; the SDK reconnects and subscribes
again), and the fan-out never waits for it.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from ._realtime_topics import Topic

QUEUE_SIZE = 256


def frame(client_id: str, event: str, data: Any) -> str:
    """One SSE frame as PocketBase writes it: `id:`, `event:`, `data:`, a blank line."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"id:{client_id}\nevent:{event}\ndata:{text}\n\n"


@dataclass(slots=True)
class Client:
    id: str = field(default_factory=lambda: secrets.token_hex(20))
    size: int = QUEUE_SIZE
    topics: tuple[Topic, ...] = ()
    # who subscribed, as authorisation resolved it: `Caller.kind` and `credential_id` (a
    # grant's id, never its token); deliveries are checked against it again
    caller: tuple[str, str] | None = None
    rev: int = 0  # the revision of the set applied (the store numbers them)
    dropped: bool = False
    queue: asyncio.Queue[str | None] = field(init=False)

    def __post_init__(self) -> None:
        self.queue = asyncio.Queue(self.size)

    def connect_frame(self) -> str:
        return frame(self.id, "PB_CONNECT", {"clientId": self.id})

    def offer(self, text: str) -> bool:
        """Queue a frame without waiting; a full queue drops the client (False)."""
        if self.dropped:
            return False
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()
            return False
        return True

    def drop(self) -> None:
        """End the stream: what is queued is discarded and the reader wakes to `None`."""
        if self.dropped:
            return
        self.dropped = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)
