"""Whether the upstream takes a null for a field (`nullable`), proven on the run's own records.

One update of the run's record sends a null for every optional field of the entity
at once, and the answer is read per field: a refusal names the fields it refuses
(each dialect reads them), the fields it does not name are sent again without
them, and an accepted null is read back. Only a field whose answer contradicts the
mapping is tried alone before it is called wrong, so a refusal one field causes is
never blamed on another. The record's values are put back afterwards: later checks
of the entity build on them.

Where the mapping says nothing, what the upstream does is reported as learned and
`--write-corrected` records it; it is no claim, so it passes nothing and withholds
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    CannotSynthesize,
    Correction,
    Learned,
    NotAClaim,
    NotProven,
    NullableMismatch,
    VerificationFailure,
)
from ._registry import CHECKS, Subject
from ._subjects import creates, fields, updates
from ._wire import evidence
from ._writing import own_stored, rejected, send_update, violations

# Tries of the entity's whole batch before the rest of its fields go one at a time.
BATCH_ROUNDS = 3
KEY = "nullable"


@dataclass(frozen=True, slots=True)
class Blank:
    """What one null sent for a field did: refused, cleared it, or left a value."""

    refused: bool
    stored: Any = None
    why: str = ""

    @property
    def nullable(self) -> bool:
        return not self.refused and _cleared(self.stored)


def _cleared(value: Any) -> bool:
    return value is None or value == "" or value == []


def _blankable(entity: Entity, field: Field) -> bool:
    """An optional field a write can send (and a read show): a required one is refused
    blank by the guard whatever `nullable` says, and `required_enforced` proves that.

    Only where the run can make records of its own to send nulls to: an entity with no
    create has every write withheld as unproven anyway (the run writes only its own)."""
    return (
        creates(entity)
        and not (field.read_only or field.required or field.write_only or field.name == "id")
        and not (field.create_only and updates(entity))
        and not (field.update_only and not updates(entity))
    )


@CHECKS.register(
    phase="write", writes=True, subjects=fields("a null is taken as nullable says", KEY, _blankable)
)
async def null_taken(ctx: Ctx, subject: Subject) -> str | None:
    """A null sent for the field is refused when the mapping says `nullable: false`, and
    clears it when it says `nullable: true`; where it says nothing, what the upstream
    does is learned."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    where = ("entities", entity.name, "fields", field.name, KEY)
    if field.nullable is None:
        try:
            seen = await _seen(ctx, entity, field)
        except (NotProven, CannotSynthesize, VerificationFailure, ProtocolError) as exc:
            raise NotAClaim(f"nothing learned: {exc}") from None
        raise Learned(_said(seen), (Correction(where, "set", seen.nullable),))
    seen = await _seen(ctx, entity, field)
    if seen.nullable != field.nullable:
        seen = await _alone(ctx, entity, field)
    if seen.nullable == field.nullable:
        return _said(seen)
    raise NullableMismatch(
        f"{entity.name}.{field.name} is declared nullable: {str(field.nullable).lower()}, "
        f"but {_said(seen)}",
        fix=f"set entities.{entity.name}.fields.{field.name}.nullable: "
        f"{str(seen.nullable).lower()}",
        corrections=(Correction(where, "set", seen.nullable),),
        **evidence(),
    )


async def _seen(ctx: Ctx, entity: Entity, field: Field) -> Blank:
    seen = (await _batch(ctx, entity)).get(field.name)
    if seen is None:
        raise NotProven(f"no null could be sent for {field.name}")
    return seen


def _said(seen: Blank) -> str:
    if seen.refused:
        return f"the upstream refuses a null ({seen.why})" if seen.why else "a null is refused"
    if _cleared(seen.stored):
        return "a null clears it"
    return f"a null is taken but not kept: it reads back as {seen.stored!r}"


async def _batch(ctx: Ctx, entity: Entity) -> dict[str, Blank]:
    """What a null does to each optional field of `entity`, from one shared probe."""
    key = (KEY, entity.name)
    if key not in ctx.shared:
        names = [f.name for f in entity.fields.values() if _blankable(entity, f)]
        ctx.shared[key] = await _probe(ctx, entity, names)
    found: dict[str, Blank] = ctx.shared[key]
    return found


async def _probe(ctx: Ctx, entity: Entity, names: list[str]) -> dict[str, Blank]:
    if not updates(entity):
        return {n: await _on_create(ctx, entity, n) for n in names}
    before = await own_stored(ctx, entity)
    out: dict[str, Blank] = {}
    pending = list(names)
    try:
        for _ in range(BATCH_ROUNDS):
            if not pending:
                break
            try:
                nulls = dict.fromkeys(pending)
                refusal = await send_update(ctx, entity, before, nulls, again_if_dropped=True)
            except ProtocolError as exc:
                if not exc.is_("upstream_error"):
                    raise
                break  # it fails on some null of the batch: each goes alone
            if refusal is None:
                stored = await ctx.client.get_record(entity, before["id"]) or {}
                out |= {n: Blank(False, stored.get(n)) for n in pending}
                pending = []
                break
            named = _named(refusal, pending)
            if not named:
                break  # refused for no field it names: each goes alone
            out |= {n: Blank(True, why=why) for n, why in named.items()}
            pending = [n for n in pending if n not in named]
        for name in pending:
            out[name] = await _alone(ctx, entity, entity.fields[name], before=before)
    finally:
        await _restore(ctx, entity, before, out)
    return out


async def _alone(
    ctx: Ctx, entity: Entity, field: Field, *, before: dict[str, Any] | None = None
) -> Blank:
    """A null sent for this one field, the record put back after."""
    if not updates(entity):
        return await _on_create(ctx, entity, field.name)
    own = before if before is not None else await own_stored(ctx, entity)
    try:
        refusal = await send_update(ctx, entity, own, {field.name: None}, again_if_dropped=True)
    except ProtocolError as exc:
        if not exc.is_("upstream_error"):
            raise
        refusal = exc  # it failed on the null (a 500): refused, unless it cleared it
    stored = (await ctx.client.get_record(entity, own["id"]) or {}).get(field.name)
    if refusal is not None and refusal.is_("upstream_error"):
        if not _cleared(stored):
            return Blank(True, why="it answers a null with a server error")
    elif refusal is not None:
        return Blank(True, why=_named(refusal, [field.name]).get(field.name, refusal.message))
    seen = Blank(False, stored)
    if before is None:
        await _restore(ctx, entity, own, {field.name: seen})
    return seen


async def _on_create(ctx: Ctx, entity: Entity, name: str) -> Blank:
    """An entity with no update: a create that sends the null."""
    body = {**await ctx.synthesised(entity), name: None}
    try:
        made = await ctx.create(entity, body, keep={name})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return Blank(True, why=_named(exc, [name]).get(name, exc.message))
    stored = await ctx.client.get_record(entity, made["id"]) or {}
    return Blank(False, stored.get(name))


def _named(refusal: ProtocolError, names: list[str]) -> dict[str, str]:
    """The fields among `names` a refusal names, each with what it says of it."""
    return {
        str(v["field"]): str(v.get("expected") or refusal.message)
        for v in violations(refusal)
        if v.get("field") in names
    }


async def _restore(
    ctx: Ctx, entity: Entity, before: dict[str, Any], seen: dict[str, Blank]
) -> None:
    """The values the nulls changed, written back; the check's verdicts stand either way."""
    changed = {
        n: before.get(n)
        for n, blank in seen.items()
        if not blank.refused and before.get(n) != blank.stored
    }
    if changed:
        await send_update(ctx, entity, before, changed, again_if_dropped=True)
