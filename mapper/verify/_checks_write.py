"""Record claims proven by writes on the run's own records: create, required, update.

Each write goes through the runtime's own client, and each claim is proven by a
fresh read by id, never by the write's own answer: an upstream may echo what it
was sent and store something else.
"""

from __future__ import annotations

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError

from ._context import Ctx
from ._failures import (
    CannotSynthesize,
    Correction,
    CreateRefused,
    FieldTypeMismatch,
    NotProven,
    RequiredNotEnforced,
    UndeclaredRequired,
    UpdateRefused,
    UpstreamMisbehaved,
)
from ._registry import CHECKS, Subject
from ._routes import declared_by_spec, not_routed
from ._subjects import creates, entities, fields, updates
from ._values import guard, type_violation
from ._wire import evidence
from ._writing import (
    create_guarded,
    differences,
    not_persisted,
    own_stored,
    read_back,
    refused,
    rejected,
    sure,
    violations,
)


def _creatable(ctx: Ctx, subject: Subject) -> Entity:
    entity = ctx.entity(subject.entity)
    if not entity.write.create:
        raise NotProven("the mapping declares no create")
    return entity


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=entities("a create is stored as sent", "write.create", when=creates),
)
async def create_roundtrip(ctx: Ctx, subject: Subject) -> str | None:
    """A create with values synthesised from the mapping is stored: every field round-trips."""
    entity = _creatable(ctx, subject)
    body = await ctx.synthesised(entity)
    created = await create_guarded(ctx, entity, body)
    ctx.adopt(entity.name, created)
    stored = await read_back(ctx, entity, created["id"], "create")
    differ = differences(entity, body, stored)
    if differ:
        raise not_persisted(ctx, entity, body, differ, "create")
    for name in body:
        bad = type_violation(entity.fields[name], stored.get(name))
        if bad is not None:
            raise FieldTypeMismatch(
                f"{entity.name}.{name} reads back as {bad.got!r}: {bad.expected}",
                fix=f"declare entities.{entity.name}.fields.{name} as the upstream stores it",
                **evidence("GET"),
            )
    out = ctx.left_out(entity)
    note = f"; left out, their made-up values refused: {', '.join(out)}" if out else ""
    return f"{len(body)} field(s) round-trip: {', '.join(body)}{note}"


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=entities("nothing else is required", "write.create.minimal", when=creates),
)
async def create_minimal(ctx: Ctx, subject: Subject) -> str | None:
    """A create with only the required fields is accepted: nothing else is required upstream."""
    entity = _creatable(ctx, subject)
    required = {f.name for f in entity.fields.values() if f.required and not f.read_only}
    body = await ctx.synthesised(entity, only=required)
    sure(entity, body, create=True)
    try:
        await ctx.create(entity, body)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        named = [str(v["field"]) for v in violations(exc) if v.get("field")]
        missing = [n for n in named if n in entity.fields and n not in body]
        if not missing:
            raise refused(CreateRefused, entity, exc, "create") from None
        raise UndeclaredRequired(
            f"{entity.name}: the upstream refuses a create without {', '.join(missing)} "
            f"({exc.message})",
            fix=" and ".join(
                f"set entities.{entity.name}.fields.{n}.required: true" for n in missing
            ),
            corrections=tuple(
                Correction(("entities", entity.name, "fields", n, "required"), "set", True)
                for n in missing
            ),
            **evidence(),
        ) from None
    return f"created with {', '.join(sorted(body)) or 'nothing'} only"


def _required(entity: Entity, field: Field) -> bool:
    return field.required and not field.read_only and creates(entity)


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=fields("a create without it is refused", "required", _required),
)
async def required_enforced(ctx: Ctx, subject: Subject) -> str | None:
    """A create without a required field is refused by the upstream, as the guard refuses it.

    If the upstream accepts it, the mapping is what is wrong: it describes the
    upstream, and there the field is optional, so agents would be refused
    creates the app itself allows. An owner who wants the stricter rule on
    purpose says so with `evidence: [owner]`, and the check then passes.
    """
    entity = _creatable(ctx, subject)
    name = str(subject.field)
    others = {f.name for f in entity.fields.values() if _required(entity, f)} - {name}
    body = await ctx.synthesised(entity, only=others)
    body.pop(name, None)
    if not any(v.field == name for v in guard(entity, body, create=True)):
        raise CannotSynthesize(f"the guard does not refuse a {entity.name} create without {name}")
    try:
        created = await ctx.create(entity, body, mend=False)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        named = {str(v.get("field")) for v in violations(exc)} & set(entity.fields)
        if named and name not in named:
            # Refused for another field's sake: nothing learned about this one.
            raise refused(CreateRefused, entity, exc, "create") from None
        return "the upstream refuses a create without it, as the runtime's guard does"
    if any(e.source == "owner" for e in entity.fields[name].evidence):
        return "optional upstream; required by the owner's choice (evidence: owner)"
    raise RequiredNotEnforced(
        f"the upstream created {entity.name} {created['id']!r} without {name}",
        fix=f"remove required: true from entities.{entity.name}.fields.{name} (or add "
        "evidence: [owner] to keep it as a rule of your own)",
        corrections=(Correction(("entities", entity.name, "fields", name, "required"), "remove"),),
        **evidence("POST"),
    )


@CHECKS.register(
    phase="write",
    writes=True,
    subjects=entities("an update is stored as sent", "write.update", when=updates, op="update"),
)
async def update_roundtrip(ctx: Ctx, subject: Subject) -> str | None:
    """An update of every writable field is stored: each reads back as sent.

    A field written on create only (`createOnly`) is left out: `create_only_refused`
    proves the upstream will not take it."""
    entity = ctx.entity(subject.entity)
    before = await own_stored(ctx, entity, trusting=False)
    body = {
        name: value
        for name, value in (await ctx.synthesised(entity, variant=1, update=True)).items()
        if not (name in entity.fields and entity.fields[name].create_only)
    }
    if not body:
        raise NotProven(f"no field of {entity.name} is writable on update")
    sure(entity, body, create=False)
    try:
        updated = await ctx.client.update_record(entity, before["id"], body)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        raise refused(UpdateRefused, entity, exc, "update") from None
    if updated is None:
        if declared_by_spec(entity.evidence) and await ctx.client.get_record(entity, before["id"]):
            # The record reads by id: the server has no such update route.
            method = str(entity.write.update)
            raise not_routed(f"{entity.name} {before['id']!r}", method, op="update")
        raise UpstreamMisbehaved(
            f"{entity.name} {before['id']!r}, created by this run, was not found for an update",
            fix="none in the mapping: the upstream lost a record it had just created",
            **evidence(),
        )
    stored = await read_back(ctx, entity, before["id"], "update")
    differ = differences(entity, body, stored)
    if differ:
        raise not_persisted(ctx, entity, body, differ, "update")
    return f"{len(body)} field(s) updated and read back: {', '.join(body)}"
