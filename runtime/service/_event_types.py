"""Event types and the entities whose records they carry.

A trigger's event and a feed's event carry records of one entity, so they are shown
only to a caller that may read that entity (`data:<entity>:read`): the events feed
must not show what the records API would refuse.
"""

from __future__ import annotations

from runtime.mapping import Mapping
from runtime.store import FeedAction

PAST: dict[FeedAction, str] = {"create": "created", "update": "updated", "delete": "deleted"}


def feed_event_type(entity: str, action: FeedAction) -> str:
    """`cards.updated`: the entity as the mapping spells it, then what happened."""
    return f"{entity}.{PAST[action]}"


def carried_entities(mapping: Mapping) -> dict[str, frozenset[str]]:
    """Event type -> the entities whose records it may carry (none: a hook's, say)."""
    carried: dict[str, set[str]] = {}
    for trig in mapping.serve.triggers:
        carried.setdefault(trig.type, set()).add(trig.entity)
    feed = mapping.serve.feed
    for entity in feed.entities if feed is not None else ():
        for action in PAST:
            carried.setdefault(feed_event_type(entity, action), set()).add(entity)
    return {kind: frozenset(entities) for kind, entities in carried.items()}
