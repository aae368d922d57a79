"""`/api/collections/{entity}/records[/{id}]`: guarded record access (protocol §9)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from runtime.protocol import ProtocolError

from ._http import headers_of, read_body, reply, segments
from ._reads import fetch_record, list_records
from ._security import rate_key
from ._state import RuntimeState

PREFIX = "/api/collections"


async def records_route(request: Request) -> Response:
    state: RuntimeState = request.app.state.runtime
    parts = segments(request, PREFIX)
    if len(parts) not in (2, 3) or parts[1] != "records" or "" in parts:
        raise ProtocolError("not_found")
    # The transport reads (and caps) the body before anything else looks at it.
    body = await read_body(request) if request.method not in ("GET", "HEAD") else None
    headers = headers_of(request)
    state.limiter.hit(rate_key(headers), "data")
    entity = state.mapping.entities.get(parts[0])
    if entity is None:
        raise ProtocolError(
            "unknown_entity",
            f"No entity {parts[0]!r}; declared: {', '.join(state.mapping.entities)}.",
        )
    record_id = parts[2] if len(parts) == 3 else None
    if request.method in ("GET", "HEAD"):
        state.security.authorize(headers, f"data:{entity.name}:read", write=False)
        if record_id is None:
            return reply(await list_records(state, entity, request.query_params))
        return reply(await fetch_record(state, entity, record_id))
    state.security.authorize(headers, f"data:{entity.name}:write", write=True)
    if request.method not in ("POST", "PATCH", "DELETE"):
        raise ProtocolError("usage", f"{request.method} is not a records verb.", status=405)
    del body
    raise ProtocolError(
        "not_implemented", "Record writes are not served by this runtime version yet."
    )
