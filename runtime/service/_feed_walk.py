"""One entity's walk through the runtime's own reads, page by page, within the budget.

A walk the budget stopped keeps what it read and its next page, and resumes there.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from runtime.mapping import Entity, Feed, FieldType
from runtime.upstream import ListingTag

from ._feed_budget import Budget, CountingTransport
from ._feed_diff import is_marked, record_hash

PAGE = 200


class Lister(Protocol):
    async def listing(self, entity: Entity, query: AbcMapping[str, str]) -> dict[str, Any]: ...


@dataclass(slots=True)
class Walk:
    sort: str = ""  # "" for a complete walk, else "-<modified field>"
    page: int = 1
    cost: int = 1  # requests the last page took: what the next one is expected to
    records: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    lost: bool = False  # the lease went to another process mid-walk: this walk is void
    # the listing's ETag asked before a complete walk (a proven one, of the whole listing):
    # kept for the next poll's conditional ask once this walk is recorded
    tag: ListingTag | None = None


def modified_field(entity: Entity, feed: Feed) -> str | None:
    """The field a walk newest first may stop by: the one the stamp proved moves forward
    on every update (`Feed.modified`; a name proves nothing: a creation time never moves),
    while the upstream still sorts by it. None: a complete walk."""
    name = feed.modified.get(entity.name)
    if name is None or entity.sort is None or not entity.sort.proven:
        return None
    declared = entity.fields.get(name)
    if declared is None or declared.type != FieldType.DATETIME or name not in entity.sort.fields:
        return None
    return name


async def walk(
    reads: Lister,
    entity: Entity,
    progress: Walk,
    budget: Budget,
    counter: CountingTransport,
    known: AbcMapping[str, str],
    keep: Callable[[], bool],
) -> bool:
    """Read pages until the last one (True), or until the budget cannot pay the next (False).

    A newest-first walk also ends at the first record whose hash `known` holds already.
    `keep` renews the lease before each further page: a long walk keeps it, and one that
    lost it stops (`lost`).
    """
    first = True
    while True:
        if budget.left() < progress.cost:
            return False
        if not first and not keep():
            progress.lost = True
            return False
        first = False
        before = counter.count
        query = {"page": str(progress.page), "perPage": str(PAGE), "skipTotal": "true"}
        if progress.sort:
            query["sort"] = progress.sort
        items = (await reads.listing(entity, query))["items"]
        progress.cost = max(1, counter.count - before)
        budget.spend(counter.count - before)
        for record in items:
            if is_marked(record):
                continue
            record_id, digest = str(record["id"]), record_hash(record)
            if progress.sort and known.get(record_id) == digest:
                return True
            progress.records[record_id] = (digest, record)
        if len(items) < PAGE:
            return True
        progress.page += 1
