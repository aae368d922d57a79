"""Records already read during one request, so a write's ref check and its receipt
share one upstream read. Read-back never goes through here: it must be fresh."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from runtime.mapping import Entity
from runtime.upstream import UpstreamClient

_SEEN: ContextVar[dict[tuple[str, str], dict[str, Any] | None] | None] = ContextVar(
    "a2app_seen_records", default=None
)


def begin() -> None:
    """Start a fresh memo for the current request."""
    _SEEN.set({})


async def get_record(
    upstream: UpstreamClient, entity: Entity, record_id: str
) -> dict[str, Any] | None:
    seen = _SEEN.get()
    key = (entity.name, record_id)
    if seen is not None and key in seen:
        return seen[key]
    record = await upstream.get_record(entity, record_id)
    if seen is not None:
        seen[key] = record
    return record
