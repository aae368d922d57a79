"""When a field may be written: a create-only one is refused or ignored by an update of
the run's own record; an update-only one by a create of the run's own."""

from __future__ import annotations

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    Correction,
    CreateOnlyFieldUpdatable,
    NotProven,
    UpdateOnlyFieldCreatable,
    VerificationFailure,
)
from ._registry import CHECKS, Subject
from ._subjects import creates, fields, updates
from ._values import same
from ._wire import evidence
from ._writing import own_stored, rejected, update_as_sent

CREATE_ONLY = "createOnly"
UPDATE_ONLY = "updateOnly"


def _create_only(entity: Entity, field: Field) -> bool:
    # Without an update, nothing is claimed about one.
    return field.create_only and not field.read_only and updates(entity)


def _update_only(entity: Entity, field: Field) -> bool:
    return field.update_only and not field.read_only and creates(entity)


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("an update sending it is refused or ignored", CREATE_ONLY, _create_only),
)
async def create_only_refused(ctx: Ctx, subject: Subject) -> str | None:
    """An update carrying a create-only field is refused by the upstream, or stores nothing.

    The runtime's guard refuses such an update and its client never sends the field on
    one; the value is sent here on purpose, through the same client, to see what the
    upstream does. Stored as sent: the claim is the mapping's fault."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    if not entity.write.update:
        raise NotProven(f"{entity.name} has no update")
    before = await own_stored(ctx, entity)
    value = (await ctx.synthesised(entity, variant=1, only={field.name})).get(field.name)
    if value is None or same(field, value, before.get(field.name)):
        raise NotProven(f"no value for {field.name} that differs from the stored one")
    if not await update_as_sent(ctx, entity, before, {field.name: value}):
        return "the upstream refuses it on update"
    stored = (await ctx.client.get_record(entity, before["id"]) or {}).get(field.name)
    if same(field, value, stored):
        raise _stored_anyway(
            CreateOnlyFieldUpdatable, entity, field, CREATE_ONLY, f"was updated to {value!r}"
        )
    return "the upstream ignores it on update"


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a create sending it is refused or ignored", UPDATE_ONLY, _update_only),
)
async def update_only_refused(ctx: Ctx, subject: Subject) -> str | None:
    """A create carrying an update-only field is refused by the upstream, or stores nothing.

    The runtime's guard refuses such a create; the value is sent here on purpose, by a
    create of the run's own (the client sends what it is given), to see what the
    upstream does. Stored as sent: the claim is the mapping's fault."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    if not entity.write.create:
        raise NotProven(f"{entity.name} has no create")
    value = (await ctx.synthesised(entity, only={field.name}, update=True)).get(field.name)
    if value is None:
        raise NotProven(f"no value can be made for {field.name}")
    body = {**await ctx.synthesised(entity), field.name: value}
    try:
        made = await ctx.create(entity, body, keep={field.name})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return "the upstream refuses it on create"
    stored = (await ctx.client.get_record(entity, made["id"]) or {}).get(field.name)
    if same(field, value, stored):
        raise _stored_anyway(
            UpdateOnlyFieldCreatable, entity, field, UPDATE_ONLY, f"was sent {value!r} on create"
        )
    return "the upstream ignores it on create"


def _stored_anyway(
    kind: type[VerificationFailure], entity: Entity, field: Field, key: str, what: str
) -> VerificationFailure:
    """The claim `key` disproved: the value sent at the write it rules out was stored."""
    return kind(
        f"{entity.name}.{field.name} {what} and reads back so",
        fix=f"remove {key}: true from entities.{entity.name}.fields.{field.name}",
        corrections=(Correction(("entities", entity.name, "fields", field.name, key), "remove"),),
        **evidence("GET"),
    )
