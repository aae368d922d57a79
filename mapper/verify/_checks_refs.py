"""Whether the upstream itself refuses a reference to a record that does not exist.

A write of the run's own record names a record of the target that is not there: an
id shaped as the target's stored ids are (so a refusal is about the record, not the
id's form), confirmed absent by a read first. A refusal proves
`upstreamChecksRef: true`; a dangling id read back as sent proves `false`. The record
written is one made for the check and deleted at once. Where the mapping says nothing, what the
upstream does is reported as learned and `--write-corrected` records it.

Proven `true` by a stamp, this claim lets the runtime leave the check of the named
records to the upstream; otherwise it checks each before the write.
"""

from __future__ import annotations

import random
import uuid
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
    RefCheckMismatch,
    VerificationFailure,
)
from ._registry import CHECKS, Subject
from ._subjects import creates, fields, updates
from ._wire import evidence
from ._writing import rejected, send_update, violations

KEY = "upstreamChecksRef"
TRIES = 3
# Integer ids stay below what a 32-bit column holds, so the id is refused as missing,
# not as out of range.
INT_CEILING = 2**31 - 1
_HEX = set("0123456789abcdef-")


def _checkable(entity: Entity, field: Field) -> bool:
    """A writable reference of an entity the run can make records of (see `_observe`)."""
    return (
        field.is_ref
        and field.entity is not None
        and creates(entity)
        and not (field.read_only or field.write_only)
        and not (field.update_only and not updates(entity))
    )


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a missing record is treated as upstreamChecksRef says", KEY, _checkable),
)
async def dangling_refrefused(ctx: Ctx, subject: Subject) -> str | None:
    """A write naming a record that does not exist is refused by the upstream when the
    mapping says `upstreamChecksRef: true`, and stored when it says `false`."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    where = ("entities", entity.name, "fields", field.name, KEY)
    if field.upstream_checks_ref is None:
        try:
            checks, said = await _observe(ctx, entity, field)
        except (NotProven, CannotSynthesize, VerificationFailure, ProtocolError) as exc:
            raise NotAClaim(f"nothing learned: {exc}") from None
        raise Learned(said, (Correction(where, "set", checks),))
    checks, said = await _observe(ctx, entity, field)
    if checks == field.upstream_checks_ref:
        return said
    raise RefCheckMismatch(
        f"{entity.name}.{field.name} is declared upstreamChecksRef: "
        f"{str(field.upstream_checks_ref).lower()}, but {said}",
        fix=f"set entities.{entity.name}.fields.{field.name}.{KEY}: {str(checks).lower()}",
        corrections=(Correction(where, "set", checks),),
        **evidence(),
    )


async def _observe(ctx: Ctx, entity: Entity, field: Field) -> tuple[bool, str]:
    """Whether the upstream refused a dangling id, and what it did, in words.

    The write goes to a record made for it, deleted at once after: a reference left
    dangling must not outlive the check (nor wait for a restore the upstream may
    ignore), so an entity whose records cannot be deleted is not probed."""
    if not entity.write.delete:
        raise NotProven(
            f"{entity.name} records cannot be deleted: none is left naming a missing record"
        )
    target = ctx.entity(field.entity)
    missing = await missing_id(ctx, target)
    value: Any = [missing] if field.type == "list<ref>" else missing
    if updates(entity) and not field.create_only:
        record = await ctx.fresh(entity)
        try:
            refusal = await send_update(
                ctx, entity, record, {field.name: value}, again_if_dropped=True
            )
            if refusal is not None:
                return refused(refusal, field, target)
            stored = (await ctx.client.get_record(entity, record["id"]) or {}).get(field.name)
        finally:
            await ctx.ledger.drop(entity, record["id"])
        return _taken(target, missing, stored)
    body = {**await ctx.synthesised(entity), field.name: value}
    try:
        made = await ctx.create(entity, body, mend=False, keep={field.name})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return refused(exc, field, target)
    try:
        stored = (await ctx.client.get_record(entity, made["id"]) or {}).get(field.name)
    finally:
        await ctx.ledger.drop(entity, made["id"])
    return _taken(target, missing, stored)


def refused(refusal: ProtocolError, field: Field, target: Entity) -> tuple[bool, str]:
    named = {str(v.get("field")) for v in violations(refusal) if v.get("field")}
    if named and field.name not in named:
        others = ", ".join(sorted(named))
        raise NotProven(
            f"a write naming a missing {target.name} record was refused for {others} instead "
            f"({refusal.message})"
        )
    said = next(
        (str(v.get("expected")) for v in violations(refusal) if v.get("field") == field.name),
        None,
    )
    how = f"naming the field: {said}" if said else f"naming no field: {refusal.message}"
    return True, f"the upstream refuses a missing {target.name} record, {how}"


def _taken(target: Entity, missing: str, stored: Any) -> tuple[bool, str]:
    ids = stored if isinstance(stored, list) else [stored]
    if missing not in [str(i) for i in ids]:
        raise NotProven(
            f"a missing {target.name} id was taken but not kept (it reads back as {stored!r})"
        )
    return False, f"the upstream stores a reference to a missing {target.name} record"


async def missing_id(ctx: Ctx, target: Entity) -> str:
    """An id in the shape of the target's stored ids that names no record, by a read."""
    ids = [str(r["id"]) for r in (await ctx.snapshot(target)).records if "id" in r]
    if not ids:
        raise NotProven(f"no stored {target.name} id shows the shape a missing one must have")
    pick = random.Random(ctx.run_id)
    for n in range(TRIES):
        candidate = _shaped_like(ids, pick, n)
        if await ctx.client.get_record(target, candidate) is None:
            return candidate
    raise NotProven(f"no id shaped as {target.name}'s was found free in {TRIES} tries")


def _shaped_like(ids: list[str], pick: random.Random, n: int) -> str:
    if all(i.isdigit() for i in ids):
        return str(min(max(int(i) for i in ids) + 10**6 + n, INT_CEILING - n))
    sample = ids[n % len(ids)]
    try:
        uuid.UUID(sample)
        return str(uuid.uuid4())
    except ValueError:
        pass
    hexed = all(set(i.lower()) <= _HEX for i in ids)
    return "".join(_char_like(c, pick, hexed=hexed) for c in sample)


def _char_like(c: str, pick: random.Random, *, hexed: bool) -> str:
    if c.isdigit():
        return pick.choice("0123456789")
    if c.isalpha() and c.isascii():
        letters = "abcdef" if hexed else "abcdefghijklmnopqrstuvwxyz"
        choice = pick.choice(letters)
        return choice.upper() if c.isupper() else choice
    return c
