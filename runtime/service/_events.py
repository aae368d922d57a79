"""Events (protocol §14.1): raised on the app's side, read by agents from a cursor.

A foreign app cannot call `trigger` itself, so the runtime raises events for it
(declared triggers, `_triggers`); an occurrence is stored once, by its dedup key.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from runtime.mapping import Mapping
from runtime.protocol import Caller, ProtocolError, canonical_json
from runtime.store import Event, Store, Task

from ._clock import wire_time
from ._event_types import carried_entities

POLL_AFTER_MS = 3000
PAGE = 500


class Plane(Protocol):
    """What raising an event needs: the app's mapping and the store."""

    @property
    def mapping(self) -> Mapping: ...
    @property
    def store(self) -> Store: ...


def default_dedup_key(type: str, capability: str | None, payload: Any) -> str:
    """`sha256:` + hex SHA-256 of the canonical JSON of {type, capability, payload}."""
    doc = {"type": type, "capability": capability, "payload": payload}
    return "sha256:" + hashlib.sha256(canonical_json(doc).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Raised:
    event: Event
    task: Task | None
    new: bool  # False: the occurrence was stored before (its event and task returned)


def trigger(
    state: Plane,
    type: str,
    payload: Any,
    capability: str | None = None,
    dedup_key: str | None = None,
) -> Raised:
    """The app side's `trigger(type, payload, capability?, dedupKey?)`: an event, and with a
    capability a task; a repeated occurrence returns what it raised before (even finished)."""
    key = dedup_key or default_dedup_key(type, capability, payload)
    task = None if capability is None else ("tsk_" + secrets.token_hex(8), capability)
    event, queued, new = state.store.raise_event(
        app_id=state.mapping.app.id, event_id="evt_" + secrets.token_hex(8), type=type,
        payload=payload, dedup_key=key, task=task,
    )  # fmt: skip
    return Raised(event, queued, new)


def event_doc(event: Event) -> dict[str, Any]:
    return {
        "id": event.id,
        "app": event.app_id,
        "type": event.type,
        "payload": event.payload,
        "createdAt": wire_time(event.created_at),
    }


def events_feed(state: Plane, caller: Caller, since: str) -> dict[str, Any]:
    """Events after cursor `since`, oldest first, at most `PAGE` per answer; an event
    carrying records of an entity the caller may not read is left out, and the cursor
    moves past it all the same."""
    if not since.isdigit():
        raise ProtocolError("usage", "since is the nextCursor of an earlier answer (digits).")
    rows = state.store.events_since(state.mapping.app.id, int(since), PAGE)
    cursor = str(rows[-1].seq) if rows else str(int(since))
    carried = carried_entities(state.mapping)
    shown = [e for e in rows if all(map(caller.can_read, carried.get(e.type, ())))]
    return {
        "a2app": True,
        "events": [event_doc(e) for e in shown],
        "nextCursor": cursor,
        "pollAfterMs": POLL_AFTER_MS,
    }
