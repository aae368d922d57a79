"""`POST /api/ops/{name}`: declared operations (protocol §13)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from runtime.mapping import Entity, Operation
from runtime.protocol import ProtocolError

from . import _receipts as receipts
from . import _seen as seen
from . import _writes as writes
from ._approval_gate import approve
from ._http import headers_of, only_params, read_body, reply, segments
from ._operations import execute
from ._state import RuntimeState

PREFIX = "/api/ops"


async def ops_route(request: Request) -> Response:
    state: RuntimeState = request.app.state.runtime
    seen.begin()
    parts = segments(request, PREFIX)
    if len(parts) != 1 or not parts[0]:
        raise ProtocolError("not_found")
    body = await read_body(request)
    headers = headers_of(request)
    writes.metered(state, headers, "ops", audited=True)
    op = state.mapping.operation(parts[0])
    if op is None:
        names = ", ".join(o.name for o in state.mapping.operations)
        raise ProtocolError("unknown_operation", f"No operation {parts[0]!r}; declared: {names}.")
    if request.method != "POST":
        raise ProtocolError("usage", "Operations are POST-only.", status=405)
    caller = state.security.authorize(headers, f"op:{op.name}", write=not op.read_only)
    only_params(request, ())
    if state.reads_only and not op.read_only:
        raise ProtocolError(
            "writes_not_verified",
            f"{op.name} changes data, and writes to this app were never proven by `a2map verify`.",
        )
    target = f"op:{op.name}"
    agent = headers.get("x-a2app-agent") or headers.get("x-lui-agent")
    try:
        args = await writes.guarded(state, op.params, body, require=True, params=True)
    except ProtocolError as exc:
        writes.audit(state, caller, target, "rejected", code=exc.code, asserted_agent=agent)
        raise
    idem = writes.Idempotency(state, f"op:{op.name}", headers.get("idempotency-key"))
    idem.reserve()
    try:
        if op.destructive:
            approve(state, op.name, args, headers)
        if op.job is not None:
            result: Any = {"jobId": state.jobs.start(op, args)}
        else:
            result = await execute(state, op, args)
    except ProtocolError as exc:
        idem.fail(exc, operation=op.name)
        # a 428 is no attempt yet and is not audited (§20); an owner's denial is
        if exc.code not in ("approval_required", "approval_pending"):
            writes.audit(state, caller, target, "rejected", code=exc.code, asserted_agent=agent)
        raise
    except BaseException as exc:
        idem.fail(exc, operation=op.name)
        raise
    idem.complete(operation=op.name)
    if not op.read_only and op.job is None:
        state.store.bump_data_version(state.mapping.app.id)
    writes.audit(state, caller, target, "ok", asserted_agent=agent)
    suffix = f" (job {result['jobId']})." if op.job is not None else ""
    text = receipts.for_operation(state, caller, op.name, await _target(state, op, args), suffix)
    doc = {"a2app": True, "ok": True, "operation": op.name, "result": result}
    return reply(doc, headers=receipts.header(text))


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
