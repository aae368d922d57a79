"""Listings made by POST (``list: {method: POST}``): the probe never sent them.

A listing by POST is taken from the spec alone (the probe is read-only), so nothing
about it was seen before verification. `list_walks` proves its paging (small pages
and one large walk agree); this check proves it lists the entity's own records: each
record it lists (up to a bound, spread over the walk) reads back by id at the detail
route as listed, and an empty body answers the same records as the walk.
"""

from __future__ import annotations

from collections.abc import Iterator

from runtime.mapping import Mapping
from runtime.upstream import to_protocol

from ._context import Ctx
from ._failures import GetDisagreesWithList, GetNotFound, ListMissingRecords, NotProven
from ._listing import walked
from ._registry import CHECKS, Subject
from ._values import same
from ._wire import evidence

# Records read back by id at most: enough to catch a listing of some other resource.
POSTED_READS = 25


def posted_listings(mapping: Mapping) -> Iterator[Subject]:
    for name, entity in mapping.entities.items():
        if entity.list_method == "POST":
            yield Subject(
                f"entities.{name}.list.posted",
                f"{name}: POST {entity.list_path} lists the records read by id",
                entity=name,
            )


def _spread(count: int, most: int) -> list[int]:
    """Up to `most` positions spread over `count`, first and last included."""
    if count <= most:
        return list(range(count))
    step = (count - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


# In the read phase, before any write: after them the run's own records would be read
# while the upstream's own work still changes them (a run's estimated start, a limit's
# decaying slots), which says nothing about the listing.
@CHECKS.register(phase="read", subjects=posted_listings)
async def posted_listing_agrees(ctx: Ctx, subject: Subject) -> str | None:
    """A listing by POST walks to its end and agrees with gets by id."""
    entity = ctx.entity(subject.entity)
    snap = await walked(ctx, entity)
    if not snap.records:
        raise NotProven("the listing is empty: no record to read back by id")
    picked = [snap.records[i] for i in _spread(len(snap.records), POSTED_READS)]
    for listed in picked:
        got = await ctx.client.get_record(entity, listed["id"])
        if got is None:
            raise GetNotFound(
                f"{entity.name} {listed['id']!r} is listed by POST {entity.list_path} but "
                "reads as not found by id",
                fix=f"check entities.{entity.name}.list.path: it must list this entity's "
                "records, and detailPath must read them",
                **evidence("GET"),
            )
        differ = [
            f.name
            for f in entity.fields.values()
            if not f.write_only and not same(f, listed.get(f.name), got.get(f.name))
        ]
        if differ:
            raise GetDisagreesWithList(
                f"{entity.name} {listed['id']!r} reads differently by id than listed by "
                f"POST in: {', '.join(differ)}",
                fix=f"check entities.{entity.name}.list.path and the fields {', '.join(differ)}",
                **evidence("GET"),
            )
    body = await ctx.client.call(entity.list_method, entity.list_path, json={})
    items = _items(body, ctx.client.pagination_of(entity).items)
    first = [to_protocol(entity, item)["id"] for item in items if isinstance(item, dict)]
    unknown = sorted(set(first) - set(snap.ids))
    if unknown:
        raise ListMissingRecords(
            f"POST {entity.list_path} with an empty body answered {len(unknown)} record(s) "
            f"the walk did not list, e.g. {unknown[:3]}",
            fix=f"check entities.{entity.name}.list.pagination against what the upstream answers",
            **evidence("POST"),
        )
    return f"{len(snap.records)} records listed by POST; {len(picked)} read back by id as listed"


def _items(body: object, path: tuple[str, ...]) -> list[object]:
    for part in path:
        body = body.get(part) if isinstance(body, dict) else None
    return list(body) if isinstance(body, list) else []
