"""HTTP plumbing shared by the routes: bodies, segments, JSON replies, error rendering."""

from __future__ import annotations

import difflib
import logging
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.protocol import ProtocolError

BODY_LIMIT = 5 * 1024 * 1024
QUERY_LIMIT = 64 * 1024
HEADERS_LIMIT = 64 * 1024
log = logging.getLogger("a2app.runtime")


def reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse(body, status_code=status, headers=headers)


def error_reply(exc: ProtocolError) -> Response:
    headers = {"Connection": "close"} if exc.code == "payload_too_large" else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def headers_of(request: Request) -> dict[str, str]:
    """Lower-cased names; repeated headers joined with `,` as the protocol says."""
    out: dict[str, str] = {}
    for raw_name, raw_value in request.scope["headers"]:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        out[name] = f"{out[name]},{value}" if name in out else value
    return out


def segments(request: Request, prefix: str) -> list[str]:
    """Path segments after `prefix`: split first, then percent-decode each (§3)."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    path = raw.decode("latin-1").split("?", 1)[0].rstrip("/")
    rest = path[len(prefix) :].lstrip("/") if path.startswith(prefix) else ""
    return [unquote(part) for part in rest.split("/")] if rest else []


def only_params(request: Request, allowed: tuple[str, ...]) -> None:
    """Refuse a query parameter the route does not take: ignored, a mis-cased `Filter`
    or `perpage` would turn into a silent success with the wrong answer."""
    raw = request.scope.get("query_string", b"")
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


class StripTrailingSlash:
    """Match every path after stripping trailing slashes, without redirects."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            if len(path) > 1 and path.endswith("/"):
                scope = {**scope, "path": path.rstrip("/") or "/"}
        await self.app(scope, receive, send)


class HeadLimit:
    """Refuse an over-long header section in the protocol's envelope, before any route."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = sum(len(name) + len(value) + 4 for name, value in scope["headers"])
            if size > HEADERS_LIMIT:
                error = ProtocolError(
                    "payload_too_large",
                    f"The request headers are {size} bytes; at most {HEADERS_LIMIT} are read.",
                    limitBytes=HEADERS_LIMIT,
                )
                await error_reply(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HostGuard:
    """Refuse a foreign Host before any route runs (DNS-rebinding defence)."""

    def __init__(self, app: ASGIApp, allowed: Any) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = None
            for name, value in scope["headers"]:
                if name == b"host":
                    host = value.decode("latin-1")
                    break
            if not self.allowed(host):
                response = error_reply(
                    ProtocolError("forbidden_host", f"Host {host} is not allowed.")
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
