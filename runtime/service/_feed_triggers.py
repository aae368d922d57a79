"""The declared triggers, checked against a change the feed has in hand.

A filter over the record's own fields is evaluated here, with the read grammar's
evaluator; one that reads through refs needs other records, so it asks for a pass
of the triggers instead (the caller runs it once for all its changes).
"""

from __future__ import annotations

from datetime import UTC, datetime

from runtime.mapping import Entity
from runtime.query import EntityResolver, compile_filter, parse_filter
from runtime.store import FeedChange

from ._events import Plane, trigger
from ._related import ref_paths
from ._triggers import dedup_key_of, payload_of


def check_triggers(plane: Plane, entity: Entity, change: FeedChange) -> bool:
    """Raise what the changed record matches; True when a trigger needs a full pass."""
    if change.action == "delete" or not isinstance(change.record, dict):
        return False  # a deleted record matches nothing any more
    again = False
    mapping = plane.mapping
    for trig in mapping.serve.triggers:
        if trig.entity != entity.name:
            continue
        expr = parse_filter(trig.filter)
        if ref_paths(expr):
            again = True
            continue
        resolver = EntityResolver(entity, mapping.entities)
        matches = compile_filter(expr, resolver, now=datetime.now(UTC), text=trig.filter)
        if matches(change.record):
            payload = payload_of(trig, change.record)
            trigger(plane, trig.type, payload, trig.capability, dedup_key_of(trig, payload))
    return again
