"""An operation's http request to the upstream, its answer picked as the mapping says."""

from __future__ import annotations

from typing import Any

from runtime.mapping import Operation, Request
from runtime.protocol import ProtocolError
from runtime.upstream import operation_request

from ._guard import refused_as_missing, upstream_refusal
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
    """The call, its refs left to the upstream where it is proven to refuse a missing
    record (`upstreamChecksRef` on the param): its 404 or refusal is then told as the
    guard tells a dangling ref."""
    built = operation_request(request, args)
    entity = reach.mapping.entities.get(op.entity) if op.entity else None

    async def if_missing() -> None:
        await refused_as_missing(reach, op.params, args)

    try:
        answer = await reach.upstream.call(
            built.method, built.path, params=built.params, json=built.json, entity=entity,
            if_missing=if_missing,
        )  # fmt: skip
    except ProtocolError as exc:
        raise await upstream_refusal(reach, op.params, args, exc) from exc
    return _project(op, answer)
