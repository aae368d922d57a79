"""What the change feed (`serve.feed`) relies on, proven on the run's own records.

The feed reads an entity newest first and stops at the first record it knows
unchanged only by a field proven here: updated, a record the run created reads
back with that field moved forward, and a newest-first sort lists it ahead of
one created after it and left alone. A field that stays put (a creation time,
a due date) is no such field, whatever its name; with none, the feed walks every
record. The listing's `ETag` is proven the same way: a conditional ask answers
304 while nothing changed, and 200 with another tag once the run's record did.

Neither claim is the mapping's: the file names no modified field. What the run
sees where nothing moves is reported as learned; the stamp records only what was
proven (`feedModified`), and the runtime reads newest first by that alone.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from typing import Any

from runtime.mapping import Entity, Mapping
from runtime.protocol import ProtocolError, instant
from runtime.upstream import sort_params

from ._context import Ctx
from ._failures import Correction, Learned, NotAClaim, NotProven, SortMisordered
from ._feed_fields import candidates
from ._marker import tag_field
from ._registry import CHECKS, Subject
from ._wire import evidence
from ._writing import own_stored, rejected, sure

# Seconds between the record left alone and the update: an upstream that keeps whole
# seconds still stamps the update later than that record's creation.
SETTLE_SECONDS = 1.1


def _fed(mapping: Mapping) -> Iterator[Entity]:
    feed = mapping.serve.feed
    for name in feed.entities if feed is not None else ():
        entity = mapping.entities.get(name)
        if entity is not None:
            yield entity


def feed_modified(mapping: Mapping) -> Iterator[Subject]:
    for entity in _fed(mapping):
        if candidates(entity):
            yield Subject(
                f"entities.{entity.name}.feed.modified",
                f"{entity.name}: an update moves a field the feed reads newest first by",
                entity=entity.name,
            )


def feed_etag(mapping: Mapping) -> Iterator[Subject]:
    for entity in _fed(mapping):
        yield Subject(
            f"entities.{entity.name}.feed.etag",
            f"{entity.name}: the listing's ETag answers 304 until a record changes",
            entity=entity.name,
        )


async def _touch(ctx: Ctx, entity: Entity, record_id: str, keep: set[str]) -> list[str]:
    """Update one field of the run's record `record_id` (none of `keep`); the names sent.

    A refusal is the update claim's to report: here it leaves the claim unproven."""
    tagged = tag_field(entity)
    writable = [
        f.name for f in entity.fields.values()
        if not (f.read_only or f.create_only or f.write_only or f.is_ref or f.name in keep)
    ]  # fmt: skip
    if tagged is not None and tagged.name in writable:
        writable.insert(0, tagged.name)
    if not writable:
        raise NotProven(f"no field of {entity.name} to update but {', '.join(sorted(keep))}")
    body = await ctx.synthesised(entity, variant=1, only={writable[0]}, update=True)
    body = {n: v for n, v in body.items() if n in writable}
    sure(entity, body, create=False)
    try:
        updated = await ctx.client.update_record(entity, record_id, body)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        raise NotProven(
            f"the run's update of {entity.name} was refused ({exc.message})",
            covered_by=f"entities.{entity.name}.write.update",
        ) from None
    if updated is None:
        raise NotProven(f"the run's {entity.name} {record_id!r} was not found to update")
    return list(body)


async def _stored(ctx: Ctx, entity: Entity, record_id: str) -> dict[str, Any]:
    stored = await ctx.client.get_record(entity, record_id)
    if stored is None:
        raise NotProven(f"the run's {entity.name} {record_id!r} cannot be read back")
    return stored


def _moment(record: dict[str, Any], name: str) -> dt.datetime | None:
    return instant(record.get(name))


@CHECKS.register(phase="query", writes=True, subjects=feed_modified, withholds="sort")
async def feed_modified_moves(ctx: Ctx, subject: Subject) -> str | None:
    """An update moves a datetime field forward, and newest first lists the record first."""
    entity = ctx.entity(subject.entity)
    await own_stored(ctx, entity)  # no update declared, or writes not stored: not proven
    proven_sorts = ctx.proven_sorts.get(entity.name, [])
    sortable = [n for n in candidates(entity) if n in proven_sorts]
    if not sortable:
        raise NotProven(
            f"the upstream was not proven to sort by {', '.join(candidates(entity))} "
            f"(see entities.{entity.name}.sort)"
        )
    first = await ctx.fresh(entity)
    later = await ctx.fresh(entity)  # created after `first`, then left alone
    before, alone = await _stored(ctx, entity, first["id"]), await _stored(ctx, entity, later["id"])
    await asyncio.sleep(SETTLE_SECONDS)
    sent = await _touch(ctx, entity, first["id"], set(candidates(entity)))
    after = await _stored(ctx, entity, first["id"])
    seen: list[str] = []
    for name in sortable:
        was, now, other = _moment(before, name), _moment(after, name), _moment(alone, name)
        if was is None or now is None or other is None or not now > max(was, other):
            seen.append(f"{name} read {before.get(name)!r} before, {after.get(name)!r} after")
            continue
        assert entity.sort is not None  # every candidate is a sort field
        params = sort_params(ctx.client.dialect, entity.sort, [(name, True)], entity=entity)
        ids = [r["id"] for r in await ctx.scan(entity, params)]
        asked = "&".join(f"{k}={v}" for k, v in params.items())
        if first["id"] not in ids or later["id"] not in ids:
            raise NotProven(f"?{asked} did not list the run's two {entity.name} records")
        if ids.index(first["id"]) > ids.index(later["id"]):
            raise SortMisordered(
                f"?{asked}: {entity.name} {first['id']!r}, updated ({name}={after.get(name)!r}), "
                f"came after {later['id']!r}, unchanged ({name}={alone.get(name)!r})",
                fix=f"remove {name} from entities.{entity.name}.sort.fields "
                "(the runtime then sorts locally, and the feed walks every record)",
                corrections=(
                    Correction(("entities", entity.name, "sort", "fields"), "remove-item", name),
                ),
                narrow=("sort", (name,)),
                **evidence("GET"),
            )
        ctx.proven_feed[entity.name] = name
        return (
            f"{name} moved from {before.get(name)!r} to {after.get(name)!r} when "
            f"{', '.join(sent)} of {first['id']!r} was updated; ?{asked} lists it ahead of "
            f"{later['id']!r}, created after it and unchanged"
        )
    raise Learned(
        f"{entity.name}: no field moves forward when a record is updated "
        f"({'; '.join(seen)}): the feed walks every record",
        (),
    )


@CHECKS.register(phase="query", writes=True, subjects=feed_etag, withholds="sort")
async def feed_etag_follows(ctx: Ctx, subject: Subject) -> str | None:
    """The listing's ETag: 304 to If-None-Match while nothing changed, a new one after."""
    entity = ctx.entity(subject.entity)
    if entity.list_method == "POST":
        # If-None-Match on a POST asks for something else (412 when it matches).
        raise NotAClaim("a listing by POST is not asked conditionally")
    tag = await ctx.client.listing_tag(entity)
    if tag.etag is None:
        raise NotAClaim("the listing sends no ETag")
    record = await own_stored(ctx, entity)
    tag = await ctx.client.listing_tag(entity)  # after the run's own record was made
    if tag.etag is None:
        raise Learned(f"{entity.name}: the listing sends an ETag only at times", ())
    still = await ctx.client.listing_tag(entity, tag.etag)
    if not still.unchanged:
        raise Learned(
            f"{entity.name}: the listing sends ETag {tag.etag} but answers If-None-Match "
            "with 200 while nothing changed: the feed cannot skip a walk by it",
            (),
        )
    await _touch(ctx, entity, record["id"], set())
    moved = await ctx.client.listing_tag(entity, tag.etag)
    if moved.unchanged or moved.etag == tag.etag:
        raise Learned(
            f"{entity.name}: the listing answered If-None-Match {tag.etag} with 304 after "
            f"the run updated {record['id']!r}: its ETag does not follow every change (or "
            "covers a first page without that record); the feed cannot rely on it",
            (),
        )
    ctx.proven_etags.append(entity.name)
    whole = "the whole listing" if tag.whole else "a first page, not the whole listing"
    return (
        f"If-None-Match {tag.etag}: 304 while unchanged; 200 with ETag {moved.etag} after "
        f"{record['id']!r} was updated (the tagged answer is {whole})"
    )
