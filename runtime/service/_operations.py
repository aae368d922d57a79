"""Declared operations (protocol §13): executors, and a call through the write chain."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.mapping import Entity, Operation
from runtime.protocol import Caller, ProtocolError, describe, js_string
from runtime.query import EntityResolver, compile_filter, parse_filter

from . import _receipts as receipts
from ._approval_gate import approve
from ._calls import call_http
from ._chain import Done, Order, Write, run_write
from ._guard import guarded
from ._reach import Reach
from ._records import create, delete, update
from ._state import RuntimeState

# A 428 is no attempt yet and is not audited (§20), nor is a replayed key; an owner's
# denial is.
UNAUDITED = frozenset({"approval_required", "approval_pending", "duplicate_request"})


async def call_crud(reach: Reach, op: Operation, args: dict[str, Any]) -> Any:
    crud = op.crud
    assert crud is not None
    entity = reach.mapping.entities[crud.entity]
    values = {**dict(crud.set)}
    if crud.action in ("count", "list"):
        expr = parse_filter(crud.filter or "")
        match = compile_filter(
            expr, EntityResolver(entity, reach.mapping.entities), text=crud.filter
        )
        scan = reach.upstream.scan(entity, {}, limit=reach.mapping.serve.scan_limit)
        rows = [r async for r in scan if match(r)]
        if scan.truncated:
            raise ProtocolError(
                "operation_failed",
                f"{op.name} would need more than {reach.mapping.serve.scan_limit} records.",
            )
        return {"count": len(rows)} if crud.action == "count" else {"items": rows}
    if crud.action == "create":
        return await create(reach, entity, {**args, **values})
    record_id = js_string(args.get(crud.target or ""))
    if crud.action == "update":
        return await update(reach, entity, record_id, values)
    await delete(reach, entity, record_id)
    return {"deleted": record_id}


async def execute(reach: Reach, op: Operation, args: dict[str, Any]) -> Any:
    if op.request is not None:
        return await call_http(reach, op, op.request, args)
    if op.crud is not None:
        return await call_crud(reach, op, args)
    raise ProtocolError("not_implemented", f"Operation {op.name} has no executor in this runtime.")


async def _target(
    state: RuntimeState, op: Operation, args: dict[str, Any]
) -> tuple[Entity, dict[str, Any]] | None:
    """The record an entity-attached operation acted on, read again for its receipt."""
    if op.entity is None:
        return None
    entity = state.mapping.entities[op.entity]
    for name, param in op.params.items():
        if param.type == "ref" and param.entity == op.entity and args.get(name):
            try:
                record = await state.upstream.get_record(entity, str(args[name]))
            except ProtocolError:
                return None  # the call is done; a receipt without the record still says so
            return (entity, record) if record is not None else None
    return None


async def run_operation(
    state: RuntimeState, headers: dict[str, str], op: Operation, body: bytes,
    *, precheck: Callable[[], None], caller: Caller | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:  # fmt: skip
    """`POST /api/ops/{name}`: the body and the receipt's header. `caller` is the runtime's
    own (a schedule's) call, which presents no credential."""
    # The owner approved a scheduled destructive call in the mapping (`approvedBy: owner`,
    # refused on load without it); no one is there to send back a per-call key.
    scheduled = caller is not None and caller.kind == "schedule"
    write = Write(
        target=f"op:{op.name}",
        scope=f"op:{op.name}",
        write=not op.read_only,
        order=Order.GUARD_FIRST,
        idem_scope=f"op:{op.name}",
        idem_key=headers.get("idempotency-key"),
        operation=op.name,
        audit_unauthorised=False,
        unaudited=UNAUDITED,
        caller=caller,
    )

    def checks(caller: Caller) -> None:
        precheck()
        if state.reads_only and not op.read_only:
            raise ProtocolError(
                "writes_not_verified",
                f"{op.name} changes data, and writes to this app were never proven by "
                "`a2map verify`.",
            )
        refused = state.withheld.operations.get(op.name)
        if refused:
            raise ProtocolError(
                "writes_not_verified",
                f"`a2map verify` refused {op.name} ({'; '.join(refused)}); it is not served.",
                refusedClaims=list(refused),
            )

    async def guard() -> dict[str, Any]:
        return await guarded(state, op.params, body, require=True, params=True)

    async def act(caller: Caller, args: dict[str, Any]) -> Done:
        if op.destructive and not scheduled:
            approve(state, op.name, args, headers)
        if op.job is not None:
            return Done({"jobId": state.jobs.start(op, args)}, changed=False)
        return Done(await execute(state, op, args), changed=not op.read_only)

    async def receipt(caller: Caller, args: dict[str, Any], done: Done) -> receipts.Kept:
        suffix = f" (job {done.result['jobId']})." if op.job is not None else ""
        target = await _target(state, op, args)
        return receipts.for_operation(op.name, target, suffix)

    done, text = await run_write(
        state, headers, write, checks=checks, guard=guard, act=act, receipt=receipt
    )
    doc = {"a2app": True, "ok": True, "operation": op.name, "result": done.result}
    return doc, receipts.header(text)


def listing(state: RuntimeState, headers: dict[str, str]) -> dict[str, Any]:
    """`GET /api/_ops`: every declared operation with typed params, and who may run it."""
    caller = state.security.render_caller(headers)
    operations: list[dict[str, Any]] = []
    for op in state.mapping.operations:
        doc = describe.operation_doc(op)
        doc.update(module=op.module, executor=op.executor, runnable=caller.can_run(op.name))
        operations.append(doc)
    return {"a2app": True, "operations": operations}
