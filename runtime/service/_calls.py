"""An operation's http request to the upstream, its answer picked as the mapping says."""

from __future__ import annotations

from typing import Any

from runtime.mapping import Operation, Request
from runtime.upstream import operation_request

from ._reach import Reach


def _project(op: Operation, answer: Any) -> Any:
    if op.response is None:
        return answer
    node = answer
    for part in op.response.pick:
        node = node.get(part) if isinstance(node, dict) else None
    if op.response.fields and isinstance(node, dict):
        node = {k: node.get(k) for k in op.response.fields}
    return node


async def call_http(reach: Reach, op: Operation, request: Request, args: dict[str, Any]) -> Any:
    built = operation_request(request, args)
    entity = reach.mapping.entities.get(op.entity) if op.entity else None
    answer = await reach.upstream.call(
        built.method, built.path, params=built.params, json=built.json, entity=entity
    )
    return _project(op, answer)
