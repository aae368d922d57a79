"""Wire claims proven by writes on the run's own records: value codecs and form bodies.

A codec claims the wire spells a protocol value otherwise (epoch seconds, 0/1,
decimal text); a form encoding claims the upstream reads bracketed keys as the
nested values they name. Both are proven the same way: write through the
runtime's own client, read back by id, and compare decoded with what was sent.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from runtime.mapping import Entity, Field
from runtime.mapping import Mapping as MappingModel
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import Correction, FieldTypeMismatch, NotProven, WriteNotPersisted
from ._marker import tag_field
from ._registry import CHECKS, Subject
from ._routes import declared_by_spec, not_routed
from ._subjects import fields, is_writable
from ._values import same
from ._wire import evidence
from ._writing import own_stored, rejected, write_value

# Values that tell a codec's spelling apart: fractions of a unit, both truth values.
_PROBES: dict[str, tuple[Any, ...]] = {
    "epoch-seconds": ("2031-02-03T04:05:06Z", "2032-03-04T05:06:07Z"),
    "epoch-ms": ("2031-02-03T04:05:06.789Z", "2032-03-04T05:06:07.012Z"),
    "decimal-string": (7.25, 1042.5),
    "int-bool": (True, False),
}
# Text a form must escape: its separators, brackets, a space and a non-ASCII letter.
FORM_TEXT = "a2v form & = + [x] é"


def _coded(entity: Entity, field: Field) -> bool:
    return field.codec is not None and is_writable(entity, field)


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("its codec round-trips: written, read back decoded equal", "codec", _coded),
)
async def codec_roundtrip(ctx: Ctx, subject: Subject) -> str | None:
    """A field's codec round-trips: each probe value, written, reads back decoded equal."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    record = await own_stored(ctx, entity)
    codec = str(field.codec)
    for value in _PROBES[codec]:
        try:
            written = await write_value(ctx, entity, field, record, value)
        except ProtocolError as exc:
            if not rejected(exc):
                raise
            raise FieldTypeMismatch(
                f"{entity.name}.{field.name}: the upstream refused {value!r} sent as "
                f"{codec} ({exc.message})",
                fix=f"remove codec: {codec} from entities.{entity.name}.fields.{field.name}, "
                "or declare the codec the wire uses",
                corrections=(_drop_codec(entity, field),),
                **evidence(),
            ) from None
        stored = (await ctx.client.get_record(entity, written) or {}).get(field.name)
        if not same(field, value, stored):
            raise FieldTypeMismatch(
                f"{entity.name}.{field.name}: {value!r} sent as {codec} reads back as {stored!r}",
                fix=f"declare the codec entities.{entity.name}.fields.{field.name} really "
                "has on the wire, or none",
                corrections=(_drop_codec(entity, field),),
                **evidence("GET"),
            )
    return f"{len(_PROBES[codec])} value(s) round-trip as {codec}"


def _drop_codec(entity: Entity, field: Field) -> Correction:
    return Correction(("entities", entity.name, "fields", field.name, "codec"), "remove")


def _form_entities(mapping: MappingModel) -> Iterator[Subject]:
    if mapping.upstream.body_encoding != "form":
        return
    for name, entity in mapping.entities.items():
        if entity.write.update is not None:
            yield Subject(
                f"entities.{name}.write.form",
                f"{name}: a form-encoded write stores what was sent, nested values included",
                entity=name,
            )


def _form_fields(entity: Entity) -> tuple[list[Field], list[Field]]:
    """The text field the run marks its records with, and the writable objects."""
    writable = [
        f for f in entity.fields.values()
        if is_writable(entity, f) and not f.write_only and not f.create_only and not f.source[1:]
    ]  # fmt: skip
    tag = tag_field(entity)
    strings = [tag] if tag is not None and not tag.create_only else []
    nested = [f for f in writable if f.type == "json"]
    return strings, nested


def _contains(sent: Any, stored: Any) -> bool:
    """Every key sent reads back with the value sent (an upstream may merge, not replace)."""
    if isinstance(sent, Mapping):
        return isinstance(stored, Mapping) and all(
            k in stored and _contains(v, stored[k]) for k, v in sent.items()
        )
    return bool(sent == stored)


@CHECKS.register(phase="write", writes=True, subjects=_form_entities)
async def form_body_stored(ctx: Ctx, subject: Subject) -> str | None:
    """A form-encoded write stores what was sent: escaped text, and nested keys as objects."""
    entity = ctx.entity(subject.entity)
    record = await own_stored(ctx, entity)
    strings, nested = _form_fields(entity)
    proven: list[str] = []
    untried: list[str] = []
    marker = f"a2v{ctx.run_id}"[:40]
    # The marker stays in the text, so a killed run's record is still swept.
    text = f"{record.get(strings[0].name) or ''} {FORM_TEXT}".strip() if strings else ""
    fits = [f for f in strings if f.max is None or f.max >= len(text)]
    tries: list[tuple[Field, Any, Any]] = [(f, text, same) for f in fits]
    tries += [(f, {"a2v_run": marker, "a2v_plan": "pro plan & more"}, None) for f in nested]
    for field, value, compare in tries:
        try:
            await _write_and_compare(ctx, entity, record["id"], field, value, compare)
        except _Refused:
            untried.append(field.name)  # the upstream takes other values there
            continue
        proven.append(field.name if compare is not None else f"{field.name}[...]")
    if not proven:
        refused = f" (refused: {', '.join(untried)})" if untried else ""
        raise NotProven("no writable text or object field took a form value" + refused)
    note = f" (refused a flat object: {', '.join(untried)})" if untried else ""
    return f"stored as sent through a form: {', '.join(proven)}{note}"


class _Refused(Exception):
    pass


async def _write_and_compare(
    ctx: Ctx, entity: Entity, record_id: str, field: Field, value: Any, compare: Any
) -> None:
    try:
        updated = await ctx.client.update_record(entity, record_id, {field.name: value})
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        raise _Refused from None
    if updated is None and declared_by_spec(entity.evidence):
        # The record was just read: the server has no such update route.
        method = str(entity.write.update)
        raise not_routed(f"{entity.name} {record_id!r}", method, op="update")
    stored = (await ctx.client.get_record(entity, record_id) or {}).get(field.name)
    equal = compare(field, value, stored) if compare is not None else _contains(value, stored)
    if not equal:
        raise WriteNotPersisted(
            f"{entity.name}.{field.name}: {value!r} sent in a form reads back as {stored!r}",
            fix=f"check how the upstream of {entity.name} reads form bodies; it did not "
            "store what was sent",
            **evidence("GET"),
        )
