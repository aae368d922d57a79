"""Normalisations proven by a write: the read-back allows exactly what the upstream does.

A field's `normalize` (whitespace, case, sub-second precision) and `decimals` let
the runtime's read-back accept a stored value that differs from the one sent.
Declared but untrue, they would let a write the upstream changed in another way
pass as done; so each is proven here with a value the normalisation changes: the
stored value must be that value normalised, and must differ from what was sent.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import CannotSynthesize, Correction, NormalizationNotApplied
from ._registry import CHECKS, Subject
from ._subjects import fields, writes
from ._values import guard, same
from ._wire import evidence
from ._writing import own_stored, refused, rejected, write_value

_TEXT = "  A2v   Norm  x  "
_MOMENT = "2031-02-03T04:05:06.789123Z"


def _declared(entity: Entity, field: Field) -> bool:
    declared = bool(field.normalize) or field.decimals is not None
    return declared and not field.read_only and writes(entity)


def probe_value(field: Field) -> Any:
    """A value every declared normalisation of `field` changes."""
    if field.type == "number":
        places = field.decimals or 0
        return round(7 + 3 * 10.0 ** -(places + 1) + 10.0 ** -(places + 3), places + 3)
    if field.type == "datetime":
        return _MOMENT
    text = _TEXT
    if "lowercase" in field.normalize and "uppercase" not in field.normalize:
        text = text.upper()  # nothing left to fold otherwise
    if "uppercase" in field.normalize:
        text = text.lower()
    return text


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("the upstream normalises it as declared", "normalize", _declared),
)
async def normalization_applied(ctx: Ctx, subject: Subject) -> str | None:
    """A value the declared normalisation changes is stored normalised, and only so."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    record = await own_stored(ctx, entity)
    sent = probe_value(field)
    found = guard(entity, {field.name: sent}, create=field.create_only)
    if [v for v in found if v.code != "missing_required"]:
        raise CannotSynthesize(
            f"the guard refuses the probe value {sent!r} for {entity.name}.{field.name}"
        )
    try:
        written = await write_value(ctx, entity, field, record, sent)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        raise refused(NormalizationNotApplied, entity, exc, "update") from None
    stored = (await ctx.client.get_record(entity, written) or {}).get(field.name)
    exact = dataclasses.replace(field, normalize=(), decimals=None)
    declared = ", ".join(
        [*field.normalize, *([f"decimals {field.decimals}"] * (field.decimals is not None))]
    )
    where = ("entities", entity.name, "fields", field.name)
    if same(exact, sent, stored):
        raise NormalizationNotApplied(
            f"{entity.name}.{field.name} stored {sent!r} exactly as sent: it does not "
            f"normalise ({declared})",
            fix=f"remove normalize/decimals from entities.{entity.name}.fields.{field.name}",
            corrections=tuple(
                Correction((*where, key), "remove")
                for key, set_ in (("normalize", field.normalize), ("decimals", field.decimals))
                if set_ not in ((), None)
            ),
            **evidence("GET"),
        )
    if not same(field, sent, stored):
        raise NormalizationNotApplied(
            f"{entity.name}.{field.name}: sent {sent!r}, stored {stored!r}, which is not "
            f"{declared} of it",
            fix=f"declare what the upstream does to entities.{entity.name}.fields.{field.name} "
            "(normalize, decimals), or nothing if it changes values in other ways",
            **evidence("GET"),
        )
    return f"sent {sent!r}, stored {stored!r}: {declared}"
