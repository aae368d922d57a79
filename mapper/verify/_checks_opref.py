"""Whether the upstream itself refuses an operation's reference to a missing record.

The operation is called as `operation_runs` calls it, on the run's own records, with
one ref param naming a record of its target that is not there (an id shaped as the
target's stored ids, confirmed absent by a read first). A "no such record" answer
(404, or the mapping's `notFoundStatus`) or a refusal proves `upstreamChecksRef:
true` on the param; an answered call proves `false`. Only an operation the run has
already seen answer with every ref naming a record is probed: a 404 from a route that
is not there says nothing about the record. Where the mapping says nothing, what the
upstream does is reported as learned and `--write-corrected` records it.

The runtime checks every named record before a call either way; this claim is what
lets it leave that check to the upstream, and tell the upstream's 404 as the ref that
names no record.
"""

from __future__ import annotations

from collections.abc import Iterator

from runtime.mapping import Entity, Field, Mapping, Operation
from runtime.protocol import ProtocolError
from runtime.upstream import operation_request

from ._checks_ops import ANSWERED, arguments, executor_request, may_run
from ._checks_refs import KEY, missing_id, refused
from ._context import Ctx
from ._failures import (
    CannotSynthesize,
    Correction,
    Excluded,
    Learned,
    NotAClaim,
    NotProven,
    RefCheckMismatch,
    VerificationFailure,
)
from ._registry import CHECKS, Subject
from ._routes import not_about_the_claim
from ._wire import evidence, last
from ._writing import rejected


def each_ref_param(mapping: Mapping) -> Iterator[Subject]:
    for op in mapping.operations:
        for name, param in op.params.items():
            if param.is_ref and param.entity:
                yield Subject(
                    f"operations.{op.name}.params.{name}.{KEY}",
                    f"operation {op.name}: a missing {param.entity} record in {name} is "
                    f"treated as {KEY} says",
                    entity=op.entity,
                    field=name,
                    operation=op.name,
                )


@CHECKS.register(phase="operations", subjects=each_ref_param)
async def dangling_param_refused(ctx: Ctx, subject: Subject) -> str | None:
    """A call naming a record that does not exist is refused by the upstream when the
    param says `upstreamChecksRef: true`, and answered when it says `false`."""
    op = ctx.mapping.operation(str(subject.operation))
    assert op is not None
    param = op.params[str(subject.field)]
    where = ("operations", ctx.mapping.operations.index(op), "params", param.name, KEY)
    if param.upstream_checks_ref is None:
        try:
            checks, said = await _observe(ctx, op, param)
        except (NotProven, CannotSynthesize, VerificationFailure, ProtocolError) as exc:
            raise NotAClaim(f"nothing learned: {exc}") from None
        raise Learned(said, (Correction(where, "set", checks),))
    checks, said = await _observe(ctx, op, param)
    if checks == param.upstream_checks_ref:
        return said
    raise RefCheckMismatch(
        f"operation {op.name}'s {param.name} is declared {KEY}: "
        f"{str(param.upstream_checks_ref).lower()}, but {said}",
        fix=f"set operations[{where[1]}].params.{param.name}.{KEY}: {str(checks).lower()}",
        corrections=(Correction(where, "set", checks),),
        **evidence(),
    )


async def _observe(ctx: Ctx, op: Operation, param: Field) -> tuple[bool, str]:
    """Whether the upstream refused the call naming a missing record, in words."""
    request = executor_request(op)
    if op.destructive:
        # Called only on a record made for it, behind its approval; its refs stay checked.
        raise Excluded("destructive: not called naming a record that does not exist")
    if op.job is not None:
        raise NotProven("a job's call is answered before it acts: it tells nothing of the ref")
    may_run(ctx, op, request)
    if op.name not in ctx.shared.get(ANSWERED, set()):
        raise NotProven(f"{op.name} was not seen answering with records that exist")
    target = ctx.entity(str(param.entity))
    args, _, _ = await arguments(ctx, op)
    missing = await missing_id(ctx, target)
    args[param.name] = [missing] if param.type == "list<ref>" else missing
    built = operation_request(request, args)
    entity = ctx.mapping.entities.get(op.entity) if op.entity else None
    try:
        await ctx.client.call(
            request.method, built.path, params=built.params, json=built.json, entity=entity
        )
    except ProtocolError as exc:
        if not_about_the_claim(exc):
            raise
        answered = last()
        status = answered.status if answered is not None else None
        if status == ctx.mapping.upstream.not_found_status:
            return True, (
                f"the upstream answers HTTP {status} to a call naming a missing "
                f"{target.name} record"
            )
        if rejected(exc):
            return refused(exc, param, target)
        raise
    return await _answered(ctx, target, missing)


async def _answered(ctx: Ctx, target: Entity, missing: str) -> tuple[bool, str]:
    if await ctx.client.get_record(target, missing) is not None:
        # The call made the record it named: the run's own, deleted with the others.
        ctx.ledger.add(target.name, missing)
        await ctx.ledger.drop(target, missing)
        raise NotProven(f"the call made a {target.name} record {missing!r}, which it named")
    return False, f"the upstream answers a call naming a missing {target.name} record"
