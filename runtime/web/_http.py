"""HTTP plumbing shared by the routes: bodies, headers, query parameters, JSON replies."""

from __future__ import annotations

import difflib
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from runtime.protocol import ProtocolError

BODY_LIMIT = 5 * 1024 * 1024
QUERY_LIMIT = 64 * 1024
HEADERS_LIMIT = 64 * 1024
log = logging.getLogger("a2app.runtime")


def reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(body, status_code=status, headers=headers)


def error_reply(exc: ProtocolError) -> Response:
    headers = {"Connection": "close"} if exc.is_("payload_too_large") else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def headers_of(request: Request) -> dict[str, str]:
    """Lower-cased names; repeated headers joined with `,` as the protocol says."""
    out: dict[str, str] = {}
    for raw_name, raw_value in request.scope["headers"]:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        out[name] = f"{out[name]},{value}" if name in out else value
    return out


def only_params(request: Request, allowed: tuple[str, ...]) -> None:
    """Refuse a query parameter the route does not take: ignored, a mis-cased `Filter`
    or `perpage` would turn into a silent success with the wrong answer."""
    raw = request.scope.get("query_string", b"")
    if not raw:
        return  # no parameter at all: nothing to parse or refuse
    if len(raw) > QUERY_LIMIT:
        raise ProtocolError(
            "invalid_query",
            f"The query string is {len(raw)} bytes; at most {QUERY_LIMIT} are read.",
            allowed=list(allowed),
        )
    unknown = [name for name in dict.fromkeys(request.query_params) if name not in allowed]
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
        near = close or [a for a in allowed if a.lower() == name.lower()]
        if near:
            hints.append(f"{name!r} -> did you mean {near[0]!r}?")
    takes = ", ".join(allowed) if allowed else "no query parameters"
    message = f"Unknown query parameter {', '.join(map(repr, unknown))}; this route takes {takes}."
    if hints:
        message += " " + " ".join(hints)
    raise ProtocolError("invalid_query", message, got=unknown, allowed=list(allowed))


async def read_body(request: Request) -> bytes:
    """The raw body, capped at 5 MiB (§4.1); parsed later, where the guard runs, so a
    malformed body is refused in the protocol's order (after the rate gate and authorisation)."""
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > BODY_LIMIT:
            raise ProtocolError(
                "payload_too_large",
                f"The request body exceeds {BODY_LIMIT} bytes.",
                limitBytes=BODY_LIMIT,
            )
        chunks.append(chunk)
    return b"".join(chunks)
