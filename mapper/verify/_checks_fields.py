"""Field claims proven by writes on the run's own records: read-only fields, enum sets."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import quote

from runtime.mapping import READ_ONLY, Entity, Field
from runtime.protocol import ProtocolError
from runtime.upstream import to_upstream

from ._context import Ctx
from ._failures import (
    CannotSynthesize,
    Correction,
    EnumNotClosed,
    EnumValueRefused,
    ReadOnlyFieldWritable,
    Skip,
)
from ._registry import CHECKS, Subject
from ._routes import answered_404, declared_by_spec, not_routed
from ._subjects import fields
from ._values import NO_VALUE, OUTSIDE_ENUM, guard, same, scalar
from ._wire import evidence
from ._writing import own_stored, rejected

_DATETIME_PROBE = "2001-02-03T04:05:06Z"


def _read_only(entity: Entity, field: Field) -> bool:
    return field.read_only


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a write to it is refused or ignored", READ_ONLY, _read_only),
)
async def read_only_ignored(ctx: Ctx, subject: Subject) -> str | None:
    """A write to a read-only field is refused or ignored by the upstream."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    before = await own_stored(ctx, entity)
    writable = dataclasses.replace(field, read_only=False)
    value = _DATETIME_PROBE if field.type == "datetime" else scalar(writable, variant=1, n=0)
    if field.type == "boolean":
        value = not before.get(field.name)
    if value is NO_VALUE:
        raise Skip(f"no {field.type} value to probe with")
    # The runtime's client drops read-only fields from every write; this one is
    # sent on purpose, through the same client, to see what the upstream does.
    probe = dataclasses.replace(entity, fields={**entity.fields, field.name: writable})
    body = {field.name: value}
    if entity.write.update == "PUT":
        # PUT replaces the record: the other values go along unchanged.
        kept = [f for f in entity.fields.values() if not f.read_only and not f.write_only]
        body = {f.name: before.get(f.name) for f in kept} | body
    payload = to_upstream(probe, body, envelope=ctx.mapping.upstream.write_envelope)
    path = entity.detail_path.replace("{id}", quote(before["id"], safe=""))
    method = entity.write.update or "PATCH"
    try:
        await ctx.client.call(method, path, json=payload, entity=entity)
    except ProtocolError as exc:
        if answered_404(method) and declared_by_spec(entity.evidence):
            # The record was just read: the server has no such update route.
            raise not_routed(f"{entity.name} {before['id']!r}", method, op="update") from None
        if not rejected(exc):
            raise
        return "the upstream refuses a write to it"
    after = await ctx.client.get_record(entity, before["id"]) or {}
    if same(field, value, after.get(field.name)) and not same(field, value, before.get(field.name)):
        raise ReadOnlyFieldWritable(
            f"{entity.name}.{field.name} was written {value!r} and reads back so",
            fix=f"remove readOnly: true from entities.{entity.name}.fields.{field.name}",
            corrections=(
                Correction(("entities", entity.name, "fields", field.name, READ_ONLY), "remove"),
            ),
            **evidence("GET"),
        )
    return "the upstream ignores a write to it"


def _enum(entity: Entity, field: Field) -> bool:
    return field.type in ("enum", "list<enum>") and not field.read_only and bool(field.values)


@CHECKS.register(
    phase="write", writes=True, subjects=fields("every declared value is stored", "values", _enum)
)
async def enum_values_accepted(ctx: Ctx, subject: Subject) -> str | None:
    """Every declared enum value is accepted and stored by the upstream."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    record = await own_stored(ctx, entity)
    for value in field.values:
        sent = [value] if field.type == "list<enum>" else value
        try:
            await ctx.client.update_record(entity, record["id"], {field.name: sent})
        except ProtocolError as exc:
            if not rejected(exc):
                raise
            raise _value_refused(entity, field, value, exc.message) from None
        stored = (await ctx.client.get_record(entity, record["id"]) or {}).get(field.name)
        if not same(field, sent, stored):
            raise _value_refused(entity, field, value, f"accepted, but stored {stored!r}")
    return f"{len(field.values)} value(s) stored as sent"


def _value_refused(entity: Entity, field: Field, value: Any, why: str) -> EnumValueRefused:
    where = ("entities", entity.name, "fields", field.name, "values")
    return EnumValueRefused(
        f"{entity.name}.{field.name} = {value!r}: {why}",
        fix=f"remove {value!r} from entities.{entity.name}.fields.{field.name}.values",
        corrections=(Correction(where, "remove-item", value),),
        **evidence(),
    )


def _closed(entity: Entity, field: Field) -> bool:
    return _enum(entity, field)


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a value outside the set is refused", "valuesClosed", _closed),
)
async def enum_closed(ctx: Ctx, subject: Subject) -> str | None:
    """A closed enum is closed upstream too: a value outside its set is not stored."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    if not field.values_closed:
        raise Skip("declared open (valuesClosed: false)")
    record = await own_stored(ctx, entity)
    sent: Any = [OUTSIDE_ENUM] if field.type == "list<enum>" else OUTSIDE_ENUM
    if not any(v.code == "invalid_enum" for v in guard(entity, {field.name: sent}, create=False)):
        raise CannotSynthesize(f"the guard accepts {sent!r} for {entity.name}.{field.name}")
    try:
        await ctx.client.update_record(entity, record["id"], {field.name: sent})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return "the upstream refuses a value outside the set, as the runtime's guard does"
    stored = (await ctx.client.get_record(entity, record["id"]) or {}).get(field.name)
    if not same(field, sent, stored):
        return "the upstream ignores a value outside the set (stores nothing)"
    await ctx.client.update_record(entity, record["id"], {field.name: record.get(field.name)})
    where = ("entities", entity.name, "fields", field.name)
    raise EnumNotClosed(
        f"{entity.name}.{field.name} accepted and stored {sent!r}, outside {list(field.values)}",
        fix=f"set entities.{entity.name}.fields.{field.name}.valuesClosed: false (its values "
        "are then candidates, not a closed set), with a note saying why",
        corrections=(
            Correction((*where, "valuesClosed"), "set", False),
            Correction((*where, "note"), "set", "the upstream stores values outside this set"),
        ),
        **evidence("GET"),
    )
