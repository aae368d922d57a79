"""Read claims: credentials, listings that walk to their end, reads by id, stored values, refs."""

from __future__ import annotations

import math
from collections import Counter

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    Correction,
    CredentialsRefused,
    DanglingRef,
    FieldTypeMismatch,
    GetDisagreesWithList,
    GetNotFound,
    ListDuplicates,
    ListMissingRecords,
    MissingRecordFound,
    NotProven,
    PathNotFound,
    TotalMismatch,
)
from ._listing import some_records, unknown_id, walk_failure, walked
from ._registry import CHECKS, Subject
from ._routes import not_about_the_claim
from ._subjects import entities, fields, the_upstream
from ._values import same, type_violation
from ._wire import evidence

SAMPLE_READS = 3
SAMPLE_REFS = 5
MAX_SMALL_PAGES = 50


@CHECKS.register(phase="connect", subjects=the_upstream)
async def credentials_work(ctx: Ctx, subject: Subject) -> str | None:
    """The upstream answers a listing with the configured credentials."""
    names = list(ctx.options.chosen or ctx.mapping.entities)
    entity = ctx.mapping.entities[names[0]]
    try:
        # A bare listing request: paging has its own claim, and an answer is all this
        # one needs. A POST listing sends an empty JSON object (no filter, no paging).
        post = entity.list_method == "POST"
        await ctx.client.call(entity.list_method, entity.list_path, json={} if post else None)
    except ProtocolError as exc:
        if not exc.is_("upstream_auth_failed"):
            raise
        ctx.credentials_refused = True
        raise CredentialsRefused(
            exc.message,
            fix="check upstream.auth (type, header name, value template) and the environment "
            "variables it names; their values never appear in this report",
            **evidence("GET"),
        ) from None
    return f"{entity.list_method} {entity.list_path} answered"


@CHECKS.register(phase="read", subjects=entities("walks to its end, no record twice", "list"))
async def list_walks(ctx: Ctx, subject: Subject) -> str | None:
    """Every listing walks to its end: no record twice, none missing, totals agree."""
    entity = ctx.entity(subject.entity)
    try:
        snap = await ctx.snapshot(entity)
    except ProtocolError as exc:
        if not_about_the_claim(exc):
            raise
        failure = walk_failure(entity, exc)
        if isinstance(failure, PathNotFound):
            # Every other claim on it would only meet the same 404 (see the runner).
            ctx.missing_paths[entity.name] = entity.path
        raise failure from None
    if snap.truncated:
        raise NotProven(f"more than serve.scanLimit ({ctx.scan_limit}) records; walked that many")
    count = len(snap.records)
    size_cap = ctx.client.pagination_of(entity).max_size or 100
    per_page = max(1, min(size_cap, math.ceil(count / 3)), math.ceil(count / MAX_SMALL_PAGES))
    ids: list[str] = []
    totals: set[int] = set()
    page = 1
    while True:
        got = await ctx.client.list_page(entity, {}, page=page, per_page=per_page)
        ids += [r["id"] for r in got.records]
        if got.total is not None:
            totals.add(got.total)
        if not got.has_more or not got.records or page > MAX_SMALL_PAGES + 1:
            break
        page += 1
    twice = sorted(i for i, n in Counter(ids).items() if n > 1)
    if twice:
        raise ListDuplicates(
            f"pages of {per_page} repeat {len(twice)} record(s), e.g. {twice[:3]}",
            fix="the upstream must order its listing stably (by id as a tie-breaker); "
            "no mapping change can make such paging exact",
            **evidence("GET"),
        )
    missing = sorted(set(snap.ids) ^ set(ids))
    if missing:
        raise ListMissingRecords(
            f"pages of {per_page} and one walk of large pages disagree on "
            f"{len(missing)} record(s), e.g. {missing[:3]}",
            fix="check upstream.pagination (page, size, items, next); if they are right, the "
            "upstream's paging loses records",
            **evidence("GET"),
        )
    counts = {count, len(ids)} | totals | ({snap.total} if snap.total is not None else set())
    if len(counts) > 1:
        raise TotalMismatch(
            f"{count} records walked, totals reported: {sorted(totals | {snap.total or count})}",
            fix="check upstream.pagination.total (or totalHeader): it must name the count of "
            "the whole listing",
            **evidence("GET"),
        )
    return f"{count} records; {page} page(s) of {per_page} agree with the walk"


@CHECKS.register(phase="read", subjects=entities("reads by id, as listed", "get"))
async def get_by_id(ctx: Ctx, subject: Subject) -> str | None:
    """A listed record reads back by id as listed; an id no record has reads as not found."""
    entity = ctx.entity(subject.entity)
    records = await some_records(ctx, entity)
    picks = {r["id"]: r for r in (records[:1] + records[len(records) // 2 :][:1] + records[-1:])}
    for listed in list(picks.values())[:SAMPLE_READS]:
        got = await ctx.client.get_record(entity, listed["id"])
        if got is None:
            raise GetNotFound(
                f"{entity.name} {listed['id']!r} is listed but reads as not found by id",
                fix=f"check entities.{entity.name}.detailPath and id.source",
                **evidence("GET"),
            )
        differ = [f.name for f in entity.fields.values() if _differs(f, listed, got)]
        if differ:
            raise GetDisagreesWithList(
                f"{entity.name} {listed['id']!r} reads differently by id in: {', '.join(differ)}",
                fix=f"remove {', '.join(differ)} from entities.{entity.name}.fields, or map the "
                "listing and the record to the same upstream fields",
                **evidence("GET"),
            )
    missing = unknown_id(ctx, entity)
    if await ctx.client.get_record(entity, missing) is not None:
        raise MissingRecordFound(
            f"GET for {entity.name} {missing!r}, which no record has, answered a record",
            fix="none in the mapping: the upstream must answer 404 for an unknown id, or "
            "reads, deletes and references cannot be told from absence",
            **evidence("GET"),
        )
    return f"{len(picks)} record(s) read by id; an unknown id is not found"


def _differs(field: Field, listed: dict[str, object], got: dict[str, object]) -> bool:
    a, b = listed.get(field.name), got.get(field.name)
    return not field.write_only and a is not None and b is not None and not same(field, a, b)


def _typed(entity: Entity, field: Field) -> bool:
    return not field.write_only and field.type != "binary"


@CHECKS.register(
    phase="query", subjects=fields("stored values have the declared type", "type", _typed)
)
async def stored_values_typed(ctx: Ctx, subject: Subject) -> str | None:
    """Stored values have the declared type and format (the guard would accept them)."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    records = (await walked(ctx, entity)).records
    values = [(r["id"], r.get(field.name)) for r in records if r.get(field.name) is not None]
    if not values:
        raise NotProven("no stored value to judge")
    bad = [(rid, v) for rid, value in values if (v := type_violation(field, value)) is not None]
    if not bad:
        return f"{len(values)} stored value(s) of {field.type}"
    rid, first = bad[0]
    raise FieldTypeMismatch(
        f"{len(bad)} of {len(values)} stored {field.name} values would be refused as "
        f"{field.type}: record {rid!r} holds {first.got!r} ({first.code}: {first.expected})",
        fix=_type_fix(entity, field, [v.got for _, v in bad]),
        corrections=_type_corrections(entity, field, [v.got for _, v in bad]),
    )


def _type_fix(entity: Entity, field: Field, got: list[object]) -> str:
    where = f"entities.{entity.name}.fields.{field.name}"
    if field.type == "string" and field.max is not None and all(isinstance(g, str) for g in got):
        return f"raise {where}.max to at least {max(len(str(g)) for g in got)}"
    if field.type == "enum":
        return f"add the stored values to {where}.values, or set valuesClosed: false"
    return f"declare {where} with the type the upstream stores"


def _type_corrections(entity: Entity, field: Field, got: list[object]) -> tuple[Correction, ...]:
    where = ("entities", entity.name, "fields", field.name)
    if field.type == "string" and field.max is not None and all(isinstance(g, str) for g in got):
        return (Correction((*where, "max"), "set", max(len(str(g)) for g in got)),)
    if field.type == "enum":
        extra = sorted({str(g) for g in got} - {str(v) for v in field.values})
        return (Correction((*where, "values"), "set", [*field.values, *extra]),)
    return ()


def _ref(entity: Entity, field: Field) -> bool:
    return field.is_ref and field.entity is not None


@CHECKS.register(phase="query", subjects=fields("refers to records of its entity", "entity", _ref))
async def refs_resolve(ctx: Ctx, subject: Subject) -> str | None:
    """Stored references name existing records of the declared entity."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    target = ctx.entity(field.entity)
    seen: list[str] = []
    for record in await some_records(ctx, entity):
        value = record.get(field.name)
        for ref in value if isinstance(value, list) else [value]:
            if isinstance(ref, str) and ref not in seen:
                seen.append(ref)
    if not seen:
        raise NotProven("no stored reference to follow")
    for ref in seen[:SAMPLE_REFS]:
        if await ctx.client.get_record(target, ref) is None:
            raise DanglingRef(
                f"{entity.name}.{field.name} holds {ref!r}, which is no {target.name} record",
                fix=f"check entities.{entity.name}.fields.{field.name}.entity "
                f"(now {target.name}) and its source",
                **evidence("GET"),
            )
    return f"{min(len(seen), SAMPLE_REFS)} reference(s) resolved in {target.name}"
