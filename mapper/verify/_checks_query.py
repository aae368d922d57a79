"""Pushdown claims: every declared filter narrows exactly, every declared sort orders.

Each claim is judged against the runtime's own local evaluator: the records a
pushed-down parameter returns must be exactly those the protocol's filter
selects over the whole listing, and a pushed-down sort must leave the listing in
the order the local sort gives. Only exact agreement proves a pushdown; the
stamp lists what was proven, and the runtime delegates paging only for that.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

from runtime.mapping import Entity, Field, FieldType
from runtime.protocol import ProtocolError
from runtime.query import (
    EntityResolver,
    compile_filter,
    compile_sort,
    parse_filter,
    parse_sort,
    render_literal,
)
from runtime.upstream import encode_filter, sort_params

from ._context import Ctx
from ._failures import (
    Correction,
    Excluded,
    FilterDropsRecords,
    FilterIgnored,
    FilterRejected,
    FilterTooWide,
    ListMissingRecords,
    NotProven,
    NotRouted,
    SortIgnored,
    SortMisordered,
)
from ._listing import walked
from ._marker import TAG_PREFIX
from ._native import native_params
from ._registry import CHECKS, Subject
from ._routes import declared_by_spec, not_about_the_claim
from ._subjects import creates, each_filter, each_sort_field, entities
from ._wire import evidence

MAX_PROBES = 12
_WORD = re.compile(r"[A-Za-z0-9]{3,}")
# Text the runtime would push down for `~` (no LIKE wildcards, nothing it trims).
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .-]*[A-Za-z0-9]")
_TEXT_OPS = ("~", "!~", "?~", "?!~")
_ORDER_OPS = ("<", "<=", ">", ">=", "?<", "?<=", "?>", "?>=")


def _declared(entity: Entity, name: str) -> Field:
    if name == "id":
        return Field(name="id", type=FieldType.STRING, source=entity.id_source)
    return entity.fields[name]


def _values(records: list[dict[str, Any]], name: str) -> list[Any]:
    out: list[Any] = []
    for record in records:
        value = record.get(name)
        for item in value if isinstance(value, list) else [value]:
            if item is not None and item not in out:
                out.append(item)
    return out


def _candidates(
    ctx: Ctx, entity: Entity, name: str, op: str, records: list[dict[str, Any]]
) -> Iterator[Any]:
    """Probe values, the run's own records first: they are known to hold what was written."""
    own = {rid for e, rid in ctx.ledger.pending if e == entity.name}
    mine = [r for r in records if r["id"] in own]
    values = _values(mine, name) + [
        v for v in _values(records, name) if v not in _values(mine, name)
    ]
    if op in _TEXT_OPS:
        marker = f"{TAG_PREFIX}{ctx.run_id}"
        texts = [v for v in values if isinstance(v, str)]
        if any(marker in t for t in texts):
            yield marker.upper()  # case folding is part of the claim
        whole = [t for t in texts if _PLAIN.fullmatch(t)]
        words = [w for t in texts for w in _WORD.findall(t)]
        yield from dict.fromkeys(w.swapcase() for w in [*words, *whole])
        return
    if op in _ORDER_OPS:
        # Around the middle, where both sides of the bound hold records.
        ordered = sorted(values, key=_order_key)
        middle = len(ordered) // 2
        values = sorted(ordered, key=lambda v: abs(ordered.index(v) - middle))
    yield from values


def _order_key(value: Any) -> tuple[int, Any]:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value))
    return (1, str(value))


def _choose(
    ctx: Ctx,
    entity: Entity,
    name: str,
    op: str,
    records: list[dict[str, Any]],
    resolver: EntityResolver,
) -> tuple[Any, str, set[str]] | None:
    """A probe value that selects some records but not all, with the filter text and selection."""
    for tried, value in enumerate(_candidates(ctx, entity, name, op, records)):
        literal = render_literal(value, escapes=False)
        if tried >= MAX_PROBES:
            break
        if literal is None:
            continue
        text = f"{name} {op} {literal}"
        match = compile_filter(parse_filter(text), resolver)
        expected = {r["id"] for r in records if match(r)}
        if 0 < len(expected) < len(records):
            return value, text, expected
    return None


@CHECKS.register(phase="query", subjects=each_filter, withholds="filter")
async def filter_narrows(ctx: Ctx, subject: Subject) -> str | None:
    """A pushed-down filter returns exactly the records the protocol's filter selects."""
    entity = ctx.entity(subject.entity)
    name, op = str(subject.field), str(subject.op)
    spelled = entity.filters[name][op]
    declared = _declared(entity, name)
    snap = await walked(ctx, entity)
    if snap.truncated:
        raise NotProven(f"more than serve.scanLimit ({ctx.scan_limit}) records to compare against")
    resolver = EntityResolver(entity, ctx.mapping.entities)
    chosen = _choose(ctx, entity, name, op, snap.records, resolver)
    for variant in (0, 1):
        # The data cannot tell: add a record of the run's own holding other values.
        if chosen is not None or not await ctx.spread(entity, variant):
            break
        snap = await walked(ctx, entity)
        chosen = _choose(ctx, entity, name, op, snap.records, resolver)
    everyone = set(snap.ids)
    if chosen is None:
        raise NotProven(f"no stored value of {name} splits the {len(everyone)} record(s)")
    value, text, expected = chosen
    params = native_params(ctx.client.dialect, entity, text)
    if params is None:
        encoded = encode_filter(ctx.client.dialect, op, declared, value)
        if encoded is None:
            raise NotProven(f"the {ctx.client.dialect.name} dialect cannot spell {value!r}")
        params = {spelled.param: encoded}
    asked = "&".join(f"{k}={v}" for k, v in params.items())
    where = ("entities", entity.name, "filter", name, op)
    fix = f'remove "{op}" from entities.{entity.name}.filter.{name} (then filtered locally)'
    try:
        got = {r["id"] for r in await ctx.scan(entity, params)}
    except ProtocolError as exc:
        if not_about_the_claim(exc):
            raise
        raise FilterRejected(
            f"`{text}` as ?{asked}: {exc.message}",
            fix=fix,
            corrections=(Correction(where, "remove"),),
            **evidence("GET"),
        ) from None
    if got == expected:
        ctx.proven_filters.setdefault(entity.name, {}).setdefault(name, []).append(op)
        return f"`{text}`: {len(got)} of {len(everyone)} records, as the local filter selects"
    if got == everyone and declared_by_spec(spelled.evidence):
        # The spec declares the parameter and the server answers as if it were not sent.
        raise NotRouted(
            f"not implemented by the upstream: ?{asked} answers every record, a query "
            "parameter its spec declares; evaluated here, not upstream"
        )
    kind = (
        FilterIgnored
        if got == everyone
        else FilterDropsRecords
        if expected - got
        else FilterTooWide
    )
    detail = (
        f"all {len(got)} records came back"
        if kind is FilterIgnored
        else f"{len(expected - got)} selected record(s) missing, e.g. {sorted(expected - got)[:3]}"
        if kind is FilterDropsRecords
        else f"{len(got - expected)} extra record(s), e.g. {sorted(got - expected)[:3]}"
    )
    raise kind(
        f"`{text}` as ?{asked}: the local filter selects {len(expected)} of "
        f"{len(everyone)} records; the upstream answered {len(got)}: {detail}",
        fix=fix,
        corrections=(Correction(where, "remove"),),
        **evidence("GET"),
    )


@CHECKS.register(phase="query", subjects=each_sort_field, withholds="sort")
async def sort_orders(ctx: Ctx, subject: Subject) -> str | None:
    """A pushed-down sort orders the listing as the local sort does, ascending and descending."""
    entity = ctx.entity(subject.entity)
    spec = entity.sort
    assert spec is not None
    name = str(subject.field)
    snap = await walked(ctx, entity)
    if snap.truncated:
        raise NotProven(f"more than serve.scanLimit ({ctx.scan_limit}) records to order")
    resolver = EntityResolver(entity, ctx.mapping.entities)
    for variant in (0, 1):
        if _distinct(snap.records, name) > 1 or not await ctx.spread(entity, variant):
            break
        snap = await walked(ctx, entity)
    if _distinct(snap.records, name) < 2:
        # An ignored sort parameter passes both directions when every value ties.
        raise NotProven(f"fewer than two distinct values of {name}")
    where = ("entities", entity.name, "sort", "fields")
    fix = f"remove {name} from entities.{entity.name}.sort.fields (the runtime then sorts locally)"
    orders: list[list[str]] = []
    for descending in (False, True):
        params = sort_params(ctx.client.dialect, spec, [(name, descending)], entity=entity)
        asked = "&".join(f"{k}={v}" for k, v in params.items())
        try:
            got = await ctx.scan(entity, params)
        except ProtocolError as exc:
            if not_about_the_claim(exc):
                raise
            raise SortMisordered(
                f"?{asked}: {exc.message}",
                fix=fix,
                corrections=(Correction(where, "remove-item", name),),
                **evidence("GET"),
            ) from None
        local = compile_sort(parse_sort(("-" if descending else "") + name), resolver)
        ids = [r["id"] for r in got]
        orders.append(ids)
        if [r["id"] for r in local(got)] != ids:
            ignored = ids == snap.ids
            kind = SortIgnored if ignored else SortMisordered
            raise kind(
                f"?{asked}: "
                + (
                    "the listing came back in its default order"
                    if ignored
                    else _first_disorder(got, local, name)
                ),
                fix=fix,
                corrections=(Correction(where, "remove-item", name),),
                **evidence("GET"),
            )
        if set(ids) != set(snap.ids):
            raise SortMisordered(
                f"?{asked} returned other records than the listing",
                fix=fix,
                corrections=(Correction(where, "remove-item", name),),
                **evidence("GET"),
            )
    ctx.proven_sorts.setdefault(entity.name, []).append(name)
    return f"{len(orders[0])} records ordered both ways as the local sort orders them"


def _distinct(records: list[dict[str, Any]], name: str) -> int:
    return len({json.dumps(r.get(name), sort_keys=True, default=str) for r in records})


def _first_disorder(got: list[dict[str, Any]], local: Any, name: str) -> str:
    for a, b in itertools.pairwise(got):
        if [r["id"] for r in local([a, b])] != [a["id"], b["id"]]:
            return (
                f"{a['id']} ({name}={a.get(name)!r}) came before {b['id']} ({name}={b.get(name)!r})"
            )
    return "the order differs from the local sort"


@CHECKS.register(
    phase="query",
    subjects=entities("lists the records this run created", "list.created", when=creates),
)
async def lists_created_records(ctx: Ctx, subject: Subject) -> str | None:
    """Records the run created appear in the listing."""
    entity = ctx.entity(subject.entity)
    if ctx.options.read_only:
        raise Excluded("not run: --read-only")
    own = [rid for name, rid in ctx.ledger.pending if name == entity.name]
    if not own:
        raise NotProven(
            "no record of this run to look for", covered_by=f"entities.{entity.name}.write.create"
        )
    snap = await walked(ctx, entity)
    missing = sorted(set(own) - set(snap.ids))
    if missing and not snap.truncated:
        raise ListMissingRecords(
            f"{len(missing)} record(s) this run created are not listed, e.g. {missing[:3]}",
            fix="check upstream.pagination and the entity path: the listing must show every record",
            **evidence("GET"),
        )
    return f"all {len(own)} record(s) of this run are listed"
