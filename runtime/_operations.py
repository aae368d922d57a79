"""Operation executors: an http request to the upstream, or a declared record action."""

from __future__ import annotations

from typing import Any

from runtime.mapping import Operation, Request
from runtime.protocol import ProtocolError
from runtime.protocol._jsjson import js_string
from runtime.query import EntityResolver, compile_filter, parse_filter
from runtime.upstream import operation_request

from . import _writes as writes
from ._state import RuntimeState

_PLACEHOLDER_OPEN = "{"


def _project(op: Operation, answer: Any) -> Any:
    if op.response is None:
        return answer
    node = answer
    for part in op.response.pick:
        node = node.get(part) if isinstance(node, dict) else None
    if op.response.fields and isinstance(node, dict):
        node = {k: node.get(k) for k in op.response.fields}
    return node


async def call_http(
    state: RuntimeState, op: Operation, request: Request, args: dict[str, Any]
) -> Any:
    built = operation_request(request, args)
    entity = state.mapping.entities.get(op.entity) if op.entity else None
    answer = await state.upstream.call(
        built.method, built.path, params=built.params, json=built.json, entity=entity
    )
    return _project(op, answer)


async def call_crud(state: RuntimeState, op: Operation, args: dict[str, Any]) -> Any:
    crud = op.crud
    assert crud is not None
    entity = state.mapping.entities[crud.entity]
    values = {**dict(crud.set)}
    if crud.action in ("count", "list"):
        expr = parse_filter(crud.filter or "")
        match = compile_filter(
            expr, EntityResolver(entity, state.mapping.entities), text=crud.filter
        )
        scan = state.upstream.scan(entity, {}, limit=state.mapping.serve.scan_limit)
        rows = [r async for r in scan if match(r)]
        if scan.truncated:
            raise ProtocolError(
                "operation_failed",
                f"{op.name} would need more than {state.mapping.serve.scan_limit} records.",
            )
        return {"count": len(rows)} if crud.action == "count" else {"items": rows}
    if crud.action == "create":
        return await writes.create(state, entity, {**args, **values})
    record_id = js_string(args.get(crud.target or ""))
    if crud.action == "update":
        return await writes.update(state, entity, record_id, values)
    await writes.delete(state, entity, record_id)
    return {"deleted": record_id}


async def execute(state: RuntimeState, op: Operation, args: dict[str, Any]) -> Any:
    if op.request is not None:
        return await call_http(state, op, op.request, args)
    if op.crud is not None:
        return await call_crud(state, op, args)
    raise ProtocolError("not_implemented", f"Operation {op.name} has no executor in this runtime.")
