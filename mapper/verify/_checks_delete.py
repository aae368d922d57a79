"""Delete claims, last in a run: a delete removes the record, and references react as declared."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from runtime.mapping import Entity, Field, Mapping
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    Correction,
    DeleteEffectMismatch,
    DeleteFoundNothing,
    Learned,
    NotProven,
    ReadAfterDeleteSucceeded,
)
from ._registry import CHECKS, Subject
from ._routes import declared_by_spec, not_routed
from ._subjects import deletes, entities, fields
from ._wire import evidence


@CHECKS.register(
    phase="delete",
    writes=True,
    subjects=entities("a deleted record is gone", "write.delete", when=deletes, op="delete"),
)
async def delete_removes(ctx: Ctx, subject: Subject) -> str | None:
    """A deleted record reads as not found afterwards (a later read is 404)."""
    entity = ctx.entity(subject.entity)
    if not entity.write.create:
        raise NotProven("no create: the verifier deletes only records it created")
    record = await ctx.fresh(entity)
    if await ctx.client.delete_record(entity, record["id"]) is None:
        if declared_by_spec(entity.evidence) and await ctx.client.get_record(entity, record["id"]):
            # The record reads by id: the server has no such DELETE route.
            raise not_routed(f"{entity.name} {record['id']!r}", "DELETE", op="delete")
        raise DeleteFoundNothing(
            f"{entity.name} {record['id']!r}, created by this run, was not found by DELETE",
            fix=f"check entities.{entity.name}.detailPath",
            **evidence("DELETE"),
        )
    if await ctx.client.get_record(entity, record["id"]) is not None:
        raise ReadAfterDeleteSucceeded(
            f"{entity.name} {record['id']!r} still reads after a successful DELETE",
            fix=f"set entities.{entity.name}.write.delete: false (the upstream keeps the record)",
            corrections=(Correction(("entities", entity.name, "write", "delete"), "set", False),),
            **evidence("GET"),
        )
    ctx.ledger.forget(entity.name, record["id"])
    return "GET after DELETE answers 404"


def _deletable_ref(entity: Entity, field: Field) -> bool:
    return field.is_ref and field.entity is not None and not field.read_only


def _delete_effects(mapping: Mapping) -> Iterator[Subject]:
    """What deleting a target does is claimed only where that delete is served."""
    for subject in fields(
        "deleting its target acts as upstreamOnDelete says", "upstreamOnDelete", _deletable_ref
    )(mapping):
        field = mapping.entities[str(subject.entity)].fields[str(subject.field)]
        target = mapping.entities.get(str(field.entity))
        if target is not None and target.write.delete:
            yield subject


@CHECKS.register(phase="delete", writes=True, subjects=_delete_effects)
async def delete_effect(ctx: Ctx, subject: Subject) -> str | None:
    """Deleting a referenced record affects the referring record as `upstreamOnDelete` records.

    Unproven, it withholds the target's delete (served with an effect nobody saw), not
    the referring entity's writes."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    target = ctx.entity(field.entity)
    try:
        if not (target.write.create and entity.write.create):
            raise NotProven(f"needs create on {entity.name} and on {target.name}")
        return await _effect(ctx, entity, field, target)
    except NotProven as unproven:
        raise NotProven(unproven.reason, op="delete", entity=target.name) from None


async def _effect(ctx: Ctx, entity: Entity, field: Field, target: Entity) -> str:
    parent = await ctx.fresh(target)
    body = await ctx.synthesised(entity)
    body[field.name] = [parent["id"]] if field.type == "list<ref>" else parent["id"]
    child = await ctx.create(entity, body)
    observed = await _observe(ctx, entity, field, target, parent["id"], child["id"])
    declared = field.upstream_on_delete
    where = f"entities.{entity.name}.fields.{field.name}"
    key = ("entities", entity.name, "fields", field.name, "upstreamOnDelete")
    if declared is None:
        said = f"deleting a {target.name} record acts as {observed}"
        raise Learned(said, (Correction(key, "set", observed),))
    if declared != observed:
        raise DeleteEffectMismatch(
            f"deleting a {target.name} left the referring {entity.name} as {observed!r}, "
            f"not {declared!r}",
            fix=f"set {where}.upstreamOnDelete: {observed}",
            corrections=(Correction(key, "set", observed),),
            **evidence(),
        )
    return f"{observed}, as declared"


async def _observe(
    ctx: Ctx, entity: Entity, field: Field, target: Entity, parent: str, child: str
) -> str:
    try:
        await ctx.client.delete_record(target, parent)
    except ProtocolError as exc:
        if not exc.is_("upstream_rejected"):
            raise
        return "restrict"
    if await ctx.client.get_record(target, parent) is not None:
        raise NotProven(f"the {target.name} delete did not take (see its delete check)")
    ctx.ledger.forget(target.name, parent)
    after = await ctx.client.get_record(entity, child)
    if after is None:
        ctx.ledger.forget(entity.name, child)
        return "cascade"
    value: Any = after.get(field.name)
    still = parent in value if isinstance(value, list) else value == parent
    return "none" if still else "set-null"
