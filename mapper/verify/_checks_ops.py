"""Operation claims: each runs with its declared params, only ever on the run's own records.

An operation is run when nothing it can touch belongs to someone else: a
read-only GET, or a request whose every path placeholder is a reference the run
fills with a record it created. Destructive operations run only when asked, and
then on a record created for that one call. Everything else is reported as not
exercised, with the reason.
"""

from __future__ import annotations

import re
from typing import Any

from runtime.mapping import READ_ONLY, Entity, Operation, Request
from runtime.protocol import ProtocolError
from runtime.upstream import operation_request

from ._context import Ctx
from ._failures import (
    Correction,
    Excluded,
    NotAClaim,
    NotProven,
    OperationRefused,
    OperationResponseShape,
    ReadOnlyOperationWrote,
)
from ._listing import some_records
from ._registry import CHECKS, Subject
from ._routes import answered_404, declared_by_spec, not_about_the_claim, not_routed
from ._subjects import each_operation
from ._values import NO_VALUE, same, scalar
from ._wire import evidence, last

_PLACEHOLDER = re.compile(r"\{([^}]*)\}")
ANSWERED = ("operations", "answered")  # in `Ctx.shared`: the operations that ran


def executor_request(op: Operation) -> Request:
    if op.crud is not None:
        # Its entity's write claims prove it, and withhold it with that write.
        raise NotAClaim("runs through its entity's create/update/delete, verified with the entity")
    request = op.request or (op.job.request if op.job is not None else None)
    if request is None:
        raise NotProven("no executor this runtime can call")
    return request


def may_run(ctx: Ctx, op: Operation, request: Request) -> None:
    """Not proven unless everything the call can touch is the run's own."""
    if op.destructive and not ctx.options.include_destructive:
        raise Excluded(
            "destructive: not run without --include-destructive; served behind its approval"
        )
    if not op.destructive and op.read_only and request.method in ("GET", "HEAD"):
        return
    if ctx.options.read_only:
        raise Excluded("may write: not run with --read-only")
    refs = {name for name, p in op.params.items() if p.is_ref and p.entity}
    placeholders = set(_PLACEHOLDER.findall(request.path))
    named = {name for name in placeholders if _own_field(ctx, op, name) is not None}
    if not placeholders or not placeholders <= refs | named:
        raise NotProven("it would act on records the verifier did not create")
    for name in placeholders - named:
        target = ctx.mapping.entities.get(str(op.params[name].entity))
        if target is None or not target.write.create:
            raise NotProven(f"{name} would name a record the verifier cannot create")


def _own_field(ctx: Ctx, op: Operation, name: str) -> Entity | None:
    """The entity a path placeholder names a record of by one of its fields
    (`/api/flows/name/{name}`: a flow, by its name), when the run can make a record of
    it: the placeholder then takes the value the run's own record stores there.

    The entity is the operation's own, else the one whose listing path the request's
    path extends."""
    request = op.request or (op.job.request if op.job is not None else None)
    param = op.params.get(name)
    if request is None or param is None or param.is_ref or f"{{{name}}}" not in request.path:
        return None
    entity = ctx.mapping.entities.get(op.entity) if op.entity else _under(ctx, request.path)
    if entity is None or name not in entity.fields or param.type not in ("string", "number"):
        return None
    if entity.fields[name].type != param.type:
        return None
    return entity if entity.write.create or ctx.options.read_only else None


def _under(ctx: Ctx, path: str) -> Entity | None:
    """The entity whose listing path is the longest one `path` extends."""
    within = [
        e for e in ctx.mapping.entities.values()
        if path.startswith(e.path.rstrip("/") + "/")
    ]  # fmt: skip
    return max(within, key=lambda e: len(e.path.rstrip("/")), default=None)


@CHECKS.register(phase="operations", subjects=each_operation)
async def operation_runs(ctx: Ctx, subject: Subject) -> str | None:
    """An operation runs with its declared params on the run's own records, as declared."""
    op = ctx.mapping.operation(str(subject.operation))
    assert op is not None
    request = executor_request(op)
    may_run(ctx, op, request)
    index = ctx.mapping.operations.index(op)
    args, target, made_up = await arguments(ctx, op)
    before = await _read(ctx, target) if target and op.read_only else None
    volatile: set[str] = set()
    if before is not None and target is not None:
        # Fields that change between two reads with nothing written (a countdown to a
        # scheduled start, a "seconds ago") are the upstream's clock, not a write.
        again = await _read(ctx, target)
        volatile = {k for k, v in before.items() if not _same_value(ctx, target[0], k, v, again)}
        before = again
    built = operation_request(request, args)
    path, params, body = built.path, built.params, built.json
    entity = ctx.mapping.entities.get(op.entity) if op.entity else None
    try:
        answer = await ctx.client.call(
            request.method, path, params=params, json=body, entity=entity
        )
    except ProtocolError as exc:
        if not_about_the_claim(exc):
            raise
        answered = last()
        if made_up and answered is not None and answered.status in (400, 404, 422):
            # A made-up name, tag or token names nothing there, and a 404 cannot tell a
            # missing route from a missing record: the call proves nothing either way.
            raise NotProven(
                f"{op.name}: {request.method} {path}: called with made-up "
                f"{', '.join(made_up)}, answered HTTP {answered.status}: not proven, "
                "withheld from serving"
            ) from None
        if answered_404(request.method) and declared_by_spec(op.evidence):
            raise not_routed(f"{op.name}: {path}", request.method) from None
        raise OperationRefused(
            f"{op.name}: {request.method} {path}: {exc.message}",
            fix=f"check operations[{index}] ({op.name}): request method, path, send and params",
            **evidence(),
        ) from None
    _check_response(op, index, answer)
    if before is not None and target is not None:
        after = await _read(ctx, target)
        changed = [
            k for k, v in before.items()
            if k not in volatile and not _same_value(ctx, target[0], k, v, after)
        ]  # fmt: skip
        if changed:
            raise ReadOnlyOperationWrote(
                f"{op.name} is declared readOnly but changed {', '.join(changed)} of "
                f"{target[0]} {target[1]!r}",
                fix=f"remove readOnly: true from operations[{index}] ({op.name})",
                corrections=(Correction(("operations", index, READ_ONLY), "remove"),),
                **evidence("GET"),
            )
    # Seen answering with every ref naming a record: its 404 can now tell of one.
    ctx.shared.setdefault(ANSWERED, set()).add(op.name)
    ran = "destructive, on a record created for it" if op.destructive else "answered"
    return f"{request.method} {path}: {ran}"


async def arguments(
    ctx: Ctx, op: Operation
) -> tuple[dict[str, Any], tuple[str, str] | None, list[str]]:
    """The call's arguments: each ref names a record of the run, a placeholder the value
    the run's record stores there, any other required param a made-up value. Also the
    record the call acts on (entity, id), and the params whose values were made up."""
    args: dict[str, Any] = {}
    target: tuple[str, str] | None = None
    made_up: list[str] = []
    for name, param in op.params.items():
        if param.is_ref and param.entity:
            owner = ctx.entity(param.entity)
            record = await _record_for(ctx, owner, destructive=op.destructive)
            args[name] = [record["id"]] if param.type == "list<ref>" else record["id"]
            if param.entity == op.entity and target is None:
                target = (param.entity, record["id"])
        elif (named := _own_field(ctx, op, name)) is not None:
            record = await _record_for(ctx, named, destructive=op.destructive)
            stored = await ctx.client.get_record(named, record["id"]) or {}
            if stored.get(name) is None:
                raise NotProven(f"the run's {named.name} record stores no {name} to call it with")
            args[name] = stored[name]
            if target is None:
                target = (named.name, record["id"])
        elif param.required:
            value = scalar(param, variant=0, n=ctx.next_n())
            if value is NO_VALUE:
                raise NotProven(f"no {param.type} value for {name}")
            args[name] = value
            made_up.append(name)
    return args, target, made_up


async def _record_for(ctx: Ctx, entity: Entity, *, destructive: bool) -> dict[str, Any]:
    if ctx.options.read_only:
        # Only read-only GETs get here in this mode: an existing record is safe to name.
        records = await some_records(ctx, entity)
        if not records:
            raise NotProven(f"no {entity.name} record to call it with")
        return records[0]
    # A destructive call gets a record of its own; the standing one stays usable.
    return await (ctx.fresh(entity) if destructive else ctx.own(entity.name))


def _check_response(op: Operation, index: int, answer: Any) -> None:
    if op.response is None or not op.response.pick:
        return
    node = answer
    for part in op.response.pick:
        node = node.get(part) if isinstance(node, dict) else None
    if node is None:
        raise OperationResponseShape(
            f"{op.name} answered without {'.'.join(op.response.pick)}",
            fix=f"check operations[{index}].response.pick against the upstream's answer",
            **evidence(),
        )


async def _read(ctx: Ctx, target: tuple[str, str]) -> dict[str, Any]:
    return await ctx.client.get_record(ctx.entity(target[0]), target[1]) or {}


def _same_value(ctx: Ctx, entity: str, name: str, value: Any, after: dict[str, Any]) -> bool:
    field = ctx.entity(entity).fields.get(name)
    if field is None:
        return bool(value == after.get(name))
    return same(field, value, after.get(name))
