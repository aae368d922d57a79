"""Claims about record shapes: a field written under another name than it is read, and
ids the client chooses.

A ref read from a nested object (``severity.id``) and written to a column
(``severity_id``) is proven by writing it alone, by its write name, to another
record of the run's own, and reading the record back by id: the nested id must
now name that record. An upstream that ignores the key (the write name is wrong)
keeps the old value; one that refuses it names the field. Both are the mapping's
fault: the upstream works, just not under that name.

A create whose answer names no record (no body, no ``Location``) is found by the unique
value it sent (``write.findBy``): proven by a create of the run's own, after which
exactly one listed record holds that value, under the id the create reported, and it
reads back by that id as sent; and by a second create with the same value, which the
upstream must refuse. Only an upstream that keeps the value unique makes "the one record
holding it" the record a create made, rather than an older one.

A write answered under a key (``write.answer``) is proven by a create of the run's own
whose answer must hold the record there; an answer that does not is the mapping's fault
(the record may well have been made: the run's closing sweep removes it by its marker).

A client-chosen id (``id: {client: true}``) is proven by a create carrying an id made
of the run's marker: the upstream must store the record under exactly that id, and
read it back there; cleanup removes it with the run's other records.
"""

from __future__ import annotations

from collections.abc import Iterator

from runtime.mapping import Entity, Field, Mapping
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    ClientIdIgnored,
    Correction,
    CreateRefused,
    FindByNotUnique,
    NotProven,
    WriteAnswerMissing,
    WriteNameIgnored,
)
from ._registry import CHECKS, Subject
from ._subjects import fields, writes
from ._values import same
from ._wire import evidence
from ._writing import (
    create_guarded,
    own_stored,
    read_back,
    refused,
    rejected,
    sure,
    violations,
    write_value,
)


def _renamed(entity: Entity, field: Field) -> bool:
    return field.write_source is not None and not field.read_only and writes(entity)


def _ignored(entity: Entity, field: Field, message: str) -> WriteNameIgnored:
    key = ".".join(field.write_source or field.source)
    return WriteNameIgnored(
        f"{entity.name}.{field.name} written as {key!r}: {message}",
        fix=f"set entities.{entity.name}.fields.{field.name}.writeSource to the key the "
        "upstream's writes take for it (its create body names it), or remove it",
        **evidence(),
    )


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a write by its writeSource is stored", "writeSource", _renamed),
)
async def write_name_lands(ctx: Ctx, subject: Subject) -> str | None:
    """The field written alone by its write name reads back, from its source, as sent."""
    entity = ctx.entity(subject.entity)
    field = entity.fields[str(subject.field)]
    before = await own_stored(ctx, entity, trusting=False)
    value = (await ctx.synthesised(entity, variant=1, only={field.name})).get(field.name)
    if value is None or same(field, value, before.get(field.name)):
        raise NotProven(f"no value other than the stored one can be written to {field.name}")
    body = {field.name: value}
    if not field.create_only:
        sure(entity, body, create=False)
    try:
        written = await write_value(ctx, entity, field, before, value)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        named = sorted({str(v.get("field")) for v in violations(exc) if v.get("field")})
        why = f"the upstream refused it ({exc.message}; fields named: {', '.join(named) or '-'})"
        raise _ignored(entity, field, why) from None
    stored = await read_back(ctx, entity, written, "update")
    if not same(field, value, stored.get(field.name)):
        read_at = ".".join(field.source)
        raise _ignored(
            entity, field, f"sent {value!r}, and {read_at} still reads {stored.get(field.name)!r}"
        )
    key = ".".join(field.write_source or ())
    return f"written as {key}, read back from {'.'.join(field.source)} as sent"


def _client_ids(mapping: Mapping) -> Iterator[Subject]:
    for name, entity in mapping.entities.items():
        if entity.id_client and entity.write.create:
            what = f"{name}: a create keeps the id the client chose"
            yield Subject(f"entities.{name}.id.client", what, entity=name)


@CHECKS.register(phase="write", writes=True, subjects=_client_ids)
async def client_id_kept(ctx: Ctx, subject: Subject) -> str | None:
    """A create carrying a chosen id is stored, and read back, under that id."""
    entity = ctx.entity(subject.entity)
    if not entity.write.create:
        raise NotProven("the mapping declares no create")
    chosen = ctx.chosen_id()
    body = {"id": chosen, **(await ctx.synthesised(entity))}
    sure(entity, {k: v for k, v in body.items() if k != "id"}, create=True)
    try:
        created = await ctx.create(entity, body)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        raise refused(CreateRefused, entity, exc, "create") from None
    ctx.adopt(entity.name, created)
    if str(created["id"]) != chosen:
        raise ClientIdIgnored(
            f"{entity.name}: a create sent the id {chosen!r}; the upstream gave out "
            f"{created['id']!r}",
            fix=f"remove entities.{entity.name}.id.client (the upstream chooses the ids)",
            corrections=(Correction(("entities", entity.name, "id", "client"), "remove"),),
            **evidence("POST"),
        )
    await read_back(ctx, entity, chosen, "create")
    return f"stored and read back under the chosen id (at {entity.detail_path})"


def _found_by(mapping: Mapping) -> Iterator[Subject]:
    for name, entity in mapping.entities.items():
        if entity.write.find_by is not None and entity.write.create:
            what = f"{name}: a create is found by the {entity.write.find_by} it sent"
            yield Subject(f"entities.{name}.write.findBy", what, entity=name)


@CHECKS.register(phase="write", writes=True, subjects=_found_by)
async def created_found_by_value(ctx: Ctx, subject: Subject) -> str | None:
    """Exactly one listed record holds the value a create sent, and it is the one created."""
    entity = ctx.entity(subject.entity)
    name = str(entity.write.find_by)
    if not entity.write.create:
        raise NotProven("the mapping declares no create")
    body = await ctx.synthesised(entity)
    if body.get(name) is None:
        raise NotProven(f"no value can be synthesised for {name}")
    created = await create_guarded(ctx, entity, body)
    holders = [
        str(r["id"])
        async for r in ctx.client.scan(entity, {}, limit=ctx.scan_limit)
        if same(entity.fields[name], body[name], r.get(name))
    ]
    if holders != [str(created["id"])]:
        raise FindByNotUnique(
            f"{entity.name}: after a create sent {name}={body[name]!r} (reported as "
            f"{created['id']!r}), the records holding it are {holders!r}",
            fix=f"set entities.{entity.name}.write.findBy to a field the upstream keeps "
            "unique, or remove it (the create is then unmapped when its answer names no record)",
            **evidence("GET"),
        )
    stored = await read_back(ctx, entity, str(created["id"]), "create")
    if not same(entity.fields[name], body[name], stored.get(name)):
        raise FindByNotUnique(
            f"{entity.name} {created['id']!r} reads back {name}={stored.get(name)!r}, "
            f"not the {body[name]!r} sent",
            fix=f"remove entities.{entity.name}.write.findBy",
            **evidence("GET"),
        )
    again = {**(await ctx.synthesised(entity)), name: body[name]}
    try:
        twin = await ctx.create(entity, again, mend=False)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        return f"one record holds the {name} sent, reads back by its id; a second is refused"
    raise FindByNotUnique(
        f"{entity.name}: the upstream created {twin['id']!r} with the {name} "
        f"{body[name]!r} that {created['id']!r} already holds",
        fix=f"remove entities.{entity.name}.write.findBy (the upstream does not keep "
        f"{name} unique)",
        corrections=(Correction(("entities", entity.name, "write", "findBy"), "remove"),),
        **evidence("POST"),
    )


def _answered(mapping: Mapping) -> Iterator[Subject]:
    for name, entity in mapping.entities.items():
        if entity.write.answer is not None and entity.write.create:
            key = ".".join(entity.write.answer) or "no key (bare)"
            what = f"{name}: a create answers its record under {key}"
            yield Subject(f"entities.{name}.write.answer", what, entity=name)


@CHECKS.register(phase="write", writes=True, subjects=_answered)
async def write_answer_read(ctx: Ctx, subject: Subject) -> str | None:
    """A create's answer holds the record where `write.answer` says."""
    entity = ctx.entity(subject.entity)
    key = ".".join(entity.write.answer or ())
    body = await ctx.synthesised(entity)
    sure(entity, body, create=True)
    try:
        created = await ctx.create(entity, body)
    except ProtocolError as exc:
        if rejected(exc):
            raise refused(CreateRefused, entity, exc, "create") from None
        if not exc.is_("upstream_error"):
            raise
        raise WriteAnswerMissing(
            f"{entity.name}: the create's answer holds no record under {key or 'no key'!r} "
            f"({exc.message})",
            fix=f"set entities.{entity.name}.write.answer to the key the answer below holds "
            'the record under ("" when bare), or remove it',
            **evidence("POST"),
        ) from None
    ctx.adopt(entity.name, created)
    return f"the record {created['id']!r} was read from the answer under {key or 'no key'!r}"
