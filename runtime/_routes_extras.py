"""The older protocol's extras: the operations listing, job polling, and the receipts feed."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from runtime.protocol import ProtocolError
from runtime.protocol._describe import operation_doc

from ._http import headers_of, only_params, reply, segments
from ._jobs import job_doc
from ._security import rate_key
from ._state import RuntimeState

RECEIPTS_PAGE = 100


async def ops_listing_route(request: Request) -> Response:
    """`GET /api/_ops`: every declared operation with typed params, and who may run it."""
    state: RuntimeState = request.app.state.runtime
    if segments(request, "/api/_ops"):
        raise ProtocolError("not_found")
    if request.method not in ("GET", "HEAD"):
        raise ProtocolError("usage", "The operations listing is GET-only.", status=405)
    only_params(request, ())
    caller = state.security.render_caller(headers_of(request))
    operations: list[dict[str, Any]] = []
    for op in state.mapping.operations:
        doc = operation_doc(op)
        doc.update(module=op.module, executor=op.executor, runnable=caller.can_run(op.name))
        operations.append(doc)
    return reply({"a2app": True, "operations": operations})


async def jobs_route(request: Request) -> Response:
    """`GET /api/_jobs/{jobId}`: status and result, for callers holding the operation's scope."""
    state: RuntimeState = request.app.state.runtime
    parts = segments(request, "/api/_jobs")
    if len(parts) != 1 or not parts[0]:
        raise ProtocolError("not_found")
    headers = headers_of(request)
    state.limiter.hit(rate_key(headers), "data")
    if request.method not in ("GET", "HEAD"):
        raise ProtocolError("usage", "Jobs are polled with GET.", status=405)
    job = state.jobs.read(parts[0])
    op = state.mapping.operation(job.operation) if job is not None else None
    if job is None or op is None:
        raise ProtocolError("job_not_found", f"No job {parts[0]!r}.")
    state.security.authorize(headers, f"op:{op.name}", write=not op.read_only)
    only_params(request, ())
    return reply(job_doc(job))


def receipts_feed(request: Request, state: RuntimeState) -> Response:
    """`GET /api/_a2app/receipts?since=<cursor>`: what happened, in the system's own words."""
    headers = headers_of(request)
    state.limiter.hit(rate_key(headers), "data")
    caller = state.security.authorize(headers, None, write=False)
    only_params(request, ("since",))
    since = request.query_params.get("since", "0") or "0"
    if not since.isdigit():
        raise ProtocolError("usage", "since is the nextCursor of an earlier page (digits).")
    rows = state.store.receipts_since(state.mapping.app.id, int(since), RECEIPTS_PAGE)
    visible = []
    for row in rows:
        kind, _, name = row.target.partition(":")
        allowed = caller.can_read(name) if kind == "data" else caller.can_run(name)
        if allowed:
            visible.append(
                {
                    "id": row.id,
                    "at": row.at.isoformat().replace("+00:00", "Z"),
                    "target": row.target,
                    "recordId": row.record_id,
                    "text": row.text,
                }
            )
    cursor = str(rows[-1].id) if rows else since
    return reply({"a2app": True, "receipts": visible, "nextCursor": cursor, "pollAfterMs": 3000})
