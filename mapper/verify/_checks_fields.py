"""Field claims proven by writes on the run's own records: read-only fields, enum sets."""

from __future__ import annotations

import dataclasses
from typing import Any

from runtime.mapping import READ_ONLY, Entity, Field
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    CannotSynthesize,
    Correction,
    EnumNotClosed,
    EnumValueRefused,
    NotProven,
    ReadOnlyFieldWritable,
)
from ._registry import CHECKS, Subject
from ._subjects import fields, writes
from ._values import NO_VALUE, OUTSIDE_ENUM, guard, same, scalar
from ._wire import evidence
from ._writing import own_stored, rejected, update_as_sent, write_value

_DATETIME_PROBE = "2001-02-03T04:05:06Z"


def _read_only(entity: Entity, field: Field) -> bool:
    return field.read_only and writes(entity)


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a write to it is refused or ignored", READ_ONLY, _read_only),
)
async def read_only_ignored(ctx: Ctx, subject: Subject) -> str | None:
    """A write to a read-only field is refused or ignored by the upstream.

    A field the upstream sets itself at some writes only (`serverSets`) is proven at
    those: a value sent with them is refused or ignored and the server's own is
    stored. At the other writes the upstream stores what is sent; the runtime's guard
    never sends one."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    if not field.server_sets:
        if entity.write.update is None:
            # No update to send it with: a create sending it proves it as well.
            return await _sent_on_create(ctx, entity, field, server_sets=False)
        return await _sent_on_update(ctx, entity, field)
    said = []
    if "create" in field.server_sets:
        said.append(await _sent_on_create(ctx, entity, field))
    if "update" in field.server_sets:
        said.append(await _sent_on_update(ctx, entity, field, server_sets=True))
    return "; ".join(said)


async def _probe(ctx: Ctx, entity: Entity, field: Field, before: Any = None) -> tuple[Entity, Any]:
    """The entity with `field` writable (to send it on purpose), and a value to send: for
    a reference, a record of its entity other than the one it names."""
    writable = dataclasses.replace(field, read_only=False, server_sets=())
    value = _DATETIME_PROBE if field.type == "datetime" else scalar(writable, variant=1, n=0)
    if field.type == "boolean":
        value = not before
    target = ctx.mapping.entities.get(str(field.entity)) if field.is_ref else None
    if target is not None and not ctx.options.read_only:
        named = await ctx.record_of(target, second=before is not None)
        if named is not None and named != before:
            value = [named] if field.type == "list<ref>" else named
    if value is NO_VALUE:
        raise NotProven(f"no {field.type} value to probe with")
    # The runtime's client drops read-only fields from every write; this one is
    # sent on purpose, through the same client, to see what the upstream does.
    return dataclasses.replace(entity, fields={**entity.fields, field.name: writable}), value


async def _sent_on_create(
    ctx: Ctx, entity: Entity, field: Field, *, server_sets: bool = True
) -> str:
    if not entity.write.create:
        raise NotProven(
            f"{entity.name} has no create, and the verifier writes only its own records"
        )
    probe, value = await _probe(ctx, entity, field)
    body = {**await ctx.synthesised(entity), field.name: value}
    try:
        made = await ctx.create(probe, body, keep={field.name})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return "the upstream refuses a value sent on create"
    stored = (await ctx.client.get_record(entity, made["id"]) or {}).get(field.name)
    if not server_sets:
        # The upstream may have set that very value itself (a constant, a default):
        # only a second value, stored as sent too, tells a write apart.
        if same(field, value, stored) and (
            await _second_create(ctx, entity, field, probe, value) is not _IGNORED
        ):
            raise ReadOnlyFieldWritable(
                f"{entity.name}.{field.name} was sent {value!r}, then another value, on "
                "create, and each reads back as sent",
                fix=f"remove readOnly: true from entities.{entity.name}.fields.{field.name}",
                corrections=(Correction(_where(entity, field, READ_ONLY), "remove"),),
                **evidence("GET"),
            )
        return "the upstream ignores a value sent on create"
    if same(field, value, stored) or stored is None:
        what = "stores the value sent" if stored is not None else "sets nothing"
        raise ReadOnlyFieldWritable(
            f"{entity.name}.{field.name} was sent {value!r} on create and the upstream "
            f"{what} (stored {stored!r}): it does not set it itself on create",
            fix=f"remove create from entities.{entity.name}.fields.{field.name}.serverSets",
            corrections=(_unset(entity, field, "create"),),
            **evidence("GET"),
        )
    return "on create the upstream ignores a value sent and stores its own"


_IGNORED = object()


async def _second_create(ctx: Ctx, entity: Entity, field: Field, probe: Entity, first: Any) -> Any:
    """What a second create sending another value stores: `_IGNORED` when not that value."""
    other = scalar(dataclasses.replace(field, read_only=False, server_sets=()), variant=0, n=1)
    if field.type == "boolean":
        other = not first
    if other is NO_VALUE or same(field, other, first):
        raise NotProven(f"{field.name} takes one value only: no second value tells a write of "
                        "it from the upstream's own")  # fmt: skip
    body = {**await ctx.synthesised(entity), field.name: other}
    try:
        made = await ctx.create(probe, body, keep={field.name})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return _IGNORED
    stored = (await ctx.client.get_record(entity, made["id"]) or {}).get(field.name)
    return stored if same(field, other, stored) else _IGNORED


async def _sent_on_update(
    ctx: Ctx, entity: Entity, field: Field, *, server_sets: bool = False
) -> str:
    before = await own_stored(ctx, entity)
    probe, value = await _probe(ctx, entity, field, before.get(field.name))
    if not await update_as_sent(ctx, entity, before, {field.name: value}, probe=probe):
        return "the upstream refuses a write to it"
    stored = (await ctx.client.get_record(entity, before["id"]) or {}).get(field.name)
    written = same(field, value, stored) and not same(field, value, before.get(field.name))
    if written or (server_sets and stored is None):
        fix = _unset(entity, field, "update") if server_sets else None
        raise ReadOnlyFieldWritable(
            f"{entity.name}.{field.name} was written {value!r} and reads back "
            + ("so" if written else "blank: the upstream sets nothing on update"),
            fix=f"remove update from entities.{entity.name}.fields.{field.name}.serverSets"
            if server_sets
            else f"remove readOnly: true from entities.{entity.name}.fields.{field.name}",
            corrections=(fix or Correction(_where(entity, field, READ_ONLY), "remove"),),
            **evidence("GET"),
        )
    if server_sets:
        return "on update the upstream ignores a value sent and stores its own"
    return "the upstream ignores a write to it"


def _where(entity: Entity, field: Field, key: str) -> tuple[str, ...]:
    return ("entities", entity.name, "fields", field.name, key)


def _unset(entity: Entity, field: Field, write: str) -> Correction:
    """`write` taken out of the field's serverSets (the whole key when it was the only one)."""
    where = _where(entity, field, "serverSets")
    if len(field.server_sets) > 1:
        return Correction(where, "remove-item", write)
    return Correction(where, "remove")


def _enum(entity: Entity, field: Field) -> bool:
    return (
        field.type in ("enum", "list<enum>")
        and not field.read_only
        and bool(field.values)
        and writes(entity)
    )


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
            written = await write_value(ctx, entity, field, record, sent)
        except ProtocolError as exc:
            if not rejected(exc):
                raise
            raise _value_refused(entity, field, value, exc.message) from None
        stored = (await ctx.client.get_record(entity, written) or {}).get(field.name)
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
    # An open set (valuesClosed: false) claims nothing about values outside it.
    return _enum(entity, field) and field.values_closed


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a value outside the set is refused", "valuesClosed", _closed),
)
async def enum_closed(ctx: Ctx, subject: Subject) -> str | None:
    """A closed enum is closed upstream too: a value outside its set is not stored."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    record = await own_stored(ctx, entity)
    sent: Any = [OUTSIDE_ENUM] if field.type == "list<enum>" else OUTSIDE_ENUM
    if not any(
        v.code == "invalid_enum"
        for v in guard(entity, {field.name: sent}, create=field.create_only)
    ):
        raise CannotSynthesize(f"the guard accepts {sent!r} for {entity.name}.{field.name}")
    try:
        written = await write_value(ctx, entity, field, record, sent)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return "the upstream refuses a value outside the set, as the runtime's guard does"
    stored = (await ctx.client.get_record(entity, written) or {}).get(field.name)
    if not same(field, sent, stored):
        return "the upstream ignores a value outside the set (stores nothing)"
    if not field.create_only:
        await ctx.client.update_record(entity, written, {field.name: record.get(field.name)})
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
