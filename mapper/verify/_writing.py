"""Helpers shared by the write checks: guard first, upstream refusals read, read-backs compared."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mapper.probe import singular
from runtime.mapping import READ_ONLY, Entity, Field
from runtime.protocol import ProtocolError
from runtime.upstream import to_upstream

from ._context import Ctx
from ._failures import CannotSynthesize, Correction, CreateRefused, NotProven, WriteNotPersisted
from ._marker import tag_field
from ._routes import answered_404, declared_by_spec, not_routed
from ._values import guard, same
from ._wire import evidence


def rejected(exc: ProtocolError) -> bool:
    return exc.is_("upstream_rejected")


def violations(exc: ProtocolError) -> list[dict[str, Any]]:
    found = exc.extra.get("violations")
    return [v for v in found if isinstance(v, dict)] if isinstance(found, list) else []


def sure(entity: Entity, body: dict[str, Any], *, create: bool) -> None:
    refused = guard(entity, body, create=create)
    if refused:
        reasons = "; ".join(f"{v.field}: {v.code} ({v.expected})" for v in refused)
        raise CannotSynthesize(f"the guard refuses the synthesised {entity.name} body: {reasons}")


def differences(entity: Entity, sent: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    out = []
    for name, value in sent.items():
        field = entity.fields[name]
        if not field.write_only and not same(field, value, stored.get(name)):
            out.append(f"{name}: sent {value!r}, stored {stored.get(name)!r}")
    return out


def not_persisted(
    ctx: Ctx, entity: Entity, sent: dict[str, Any], differ: list[str], action: str
) -> Any:
    names = [d.split(":", 1)[0] for d in differ]
    label = tag_field(entity)
    most = len(names) * 2 > len(sent)
    whole = (label is not None and label.name in names) or most
    where = ("entities", entity.name)
    corrections: tuple[Correction, ...]
    # Withheld from serving: this write when it stores little of what was sent, else
    # only these fields of it (a lost label is the fix's concern, not the served one's).
    narrow = (action, ()) if most else (action, tuple(names))
    if whole:
        # Later write checks on this entity would only report the same loss again.
        ctx.unstored[entity.name] = (
            f"writes to {entity.name} are not stored (see its {action})",
            f"entities.{entity.name}.write.{action}",
        )
        key = "create" if action == "create" else "update"
        fix = f"set entities.{entity.name}.write.{key}: false (the upstream does not store it)"
        corrections = (Correction((*where, "write", key), "set", False),)
    else:
        fix = "mark " + ", ".join(names) + " readOnly: true (the upstream does not store them)"
        corrections = tuple(c for n in names for c in read_only_now(entity, n))
    return WriteNotPersisted(
        f"{entity.name}: the upstream accepted the {action} but a read by id shows "
        + "; ".join(differ[:4]),
        fix=fix,
        corrections=corrections,
        narrow=narrow,
        **evidence("GET"),
    )


def read_only_now(entity: Entity, name: str) -> tuple[Correction, ...]:
    """`readOnly: true` for a field, and out with the keys a read-only field cannot have
    (the corrected file must load)."""
    where = ("entities", entity.name, "fields", name)
    field = entity.fields.get(name)
    conflicting = {
        "writeOnly": field is not None and field.write_only,
        "createOnly": field is not None and field.create_only,
        "updateOnly": field is not None and field.update_only,
        "writeSource": field is not None and field.write_source is not None,
    }
    drop = tuple(Correction((*where, key), "remove") for key, has in conflicting.items() if has)
    return (Correction((*where, READ_ONLY), "set", True), *drop)


async def read_back(ctx: Ctx, entity: Entity, record_id: str, action: str) -> dict[str, Any]:
    stored = await ctx.client.get_record(entity, record_id)
    if stored is None:
        ctx.unstored[entity.name] = (
            f"{entity.name} records are not kept (see its {action})",
            f"entities.{entity.name}.write.{action}",
        )
        raise WriteNotPersisted(
            f"{entity.name} {record_id!r}, just {action}d, reads as not found by id",
            fix=f"set entities.{entity.name}.write.{action}: false (the upstream keeps nothing)",
            corrections=(Correction(("entities", entity.name, "write", action), "set", False),),
            **evidence("GET"),
        )
    return stored


def refused(kind: type[Any], entity: Entity, exc: ProtocolError, action: str) -> Any:
    named = [str(v.get("field")) for v in violations(exc) if v.get("field")]
    what = ", ".join(named) or "the body"
    message = (f"{entity.name}: the upstream refused a {action} the runtime's guard accepts "
               f"({exc.message})")  # fmt: skip
    key = _wrapping_key(entity, named)
    if key is not None:
        # The upstream asks for one key naming the record, which no field reads or
        # writes, and nothing else: it takes the record's fields under that key.
        return kind(
            f"{message}; it names only {key!r}, a key no field of {entity.name} reads or "
            "writes: it takes write bodies under it",
            fix=f"set entities.{entity.name}.write.wrap to {key}",
            corrections=(Correction(("entities", entity.name, "write", "wrap"), "set", key),),
            **evidence(),
        )
    return kind(
        message,
        fix=f"declare {what} in entities.{entity.name}.fields the way the upstream accepts "
        "values (type, max, values)",
        **evidence(),
    )


def _wrapping_key(entity: Entity, named: list[str]) -> str | None:
    """The one key a refusal names, when it names the record (the singular of the
    collection's name or path: ``card`` for ``/cards``) and no field is read or written
    there; any other key is more likely a field the mapping is missing."""
    if len(set(named)) != 1 or named[0] == entity.write.wrap:
        return None
    key = named[0]
    last = entity.path.rstrip("/").rsplit("/", 1)[-1]
    if key not in {entity.name, singular(entity.name), last, singular(last)}:
        return None
    keys = {f.name for f in entity.fields.values()}
    keys |= {str(f.source[0]) for f in entity.fields.values() if f.source}
    keys |= {str(f.write_source[0]) for f in entity.fields.values() if f.write_source}
    keys |= set(entity.write_allow) | {"id", *map(str, entity.id_source[:1])}
    return None if key in keys or "." in key else key


async def create_guarded(ctx: Ctx, entity: Entity, body: dict[str, Any]) -> dict[str, Any]:
    """A create the guard accepts, sent; an upstream refusal of it is the mapping's fault."""
    sure(entity, body, create=True)
    try:
        return await ctx.create(entity, body)
    except ProtocolError as exc:
        if not rejected(exc):
            raise
        raise refused(CreateRefused, entity, exc, "create") from None


async def own_stored(ctx: Ctx, entity: Entity, *, trusting: bool = True) -> dict[str, Any]:
    """The run's standing record as stored, for checks that build on working writes."""
    if entity.write.update is None:
        raise NotProven("the mapping declares no update")
    if trusting and entity.name in ctx.unstored:
        reason, claim = ctx.unstored[entity.name]
        raise NotProven(reason, covered_by=claim)
    record = await ctx.own(entity.name)
    stored = await ctx.client.get_record(entity, record["id"])
    if stored is None:
        raise NotProven(
            f"the run's {entity.name} record cannot be read back (see its create check)"
        )
    return stored


async def write_value(
    ctx: Ctx, entity: Entity, field: Field, record: dict[str, Any], sent: Any
) -> str:
    """Write `sent` to the field: by an update of the run's record, or, for a field written
    on create only (`createOnly`), by a create of a new one. The id of the record written."""
    if not field.create_only:
        await ctx.client.update_record(entity, record["id"], {field.name: sent})
        return str(record["id"])
    body = {**await ctx.synthesised(entity), field.name: sent}
    made = await ctx.create(entity, body, keep={field.name})
    return str(made["id"])


async def update_as_sent(
    ctx: Ctx, entity: Entity, before: dict[str, Any], body: dict[str, Any],
    *, probe: Entity | None = None,
) -> bool:  # fmt: skip
    """Update the run's own record with `body` exactly, past the guard (a value the
    mapping says the upstream will not take, sent to see what it does): True when the
    upstream took it, False when it refused it. `probe` writes the body as that entity
    would (a read-only field made writable). A PUT carries the record's other values
    unchanged, as the runtime's client sends them."""
    return await send_update(ctx, entity, before, body, probe=probe) is None


async def send_update(
    ctx: Ctx, entity: Entity, before: dict[str, Any], body: dict[str, Any],
    *, probe: Entity | None = None, again_if_dropped: bool = False,
) -> ProtocolError | None:  # fmt: skip
    """`update_as_sent`, answering the upstream's refusal (None when it took the body).

    `again_if_dropped`: the body only sets values, so sending it twice stores what once
    does; a connection dropped unanswered is then tried once more on a new one (a
    server may close a kept-alive connection after an error answer, and the next
    request on it meets the close)."""
    try:
        return await _send_update(ctx, entity, before, body, probe=probe)
    except ProtocolError as exc:
        if not (again_if_dropped and exc.is_("upstream_unavailable")):
            raise
    return await _send_update(ctx, entity, before, body, probe=probe)


async def _send_update(
    ctx: Ctx, entity: Entity, before: dict[str, Any], body: dict[str, Any],
    *, probe: Entity | None,
) -> ProtocolError | None:  # fmt: skip
    if entity.write.update == "PUT":
        kept = [
            f for f in entity.fields.values()
            if not f.read_only and not f.write_only and not f.create_only
        ]  # fmt: skip
        body = {f.name: before.get(f.name) for f in kept} | body
    payload = to_upstream(probe or entity, body, envelope=ctx.mapping.upstream.write_envelope)
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
        return exc
    return None
