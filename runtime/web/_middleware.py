"""What runs before any route: the header cap, the Host guard, and the path routes match."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.protocol import ProtocolError

from ._http import HEADERS_LIMIT, error_reply


def route_path(scope: Scope) -> str:
    """The path the router matches: split from `raw_path` first, then each segment decoded.

    Starlette's `path` is decoded already, so an id holding `%2F` would split in two;
    a slash (and a percent sign) inside a segment stays encoded here, and the routes
    decode their path parameters once more. Trailing slashes are stripped, without
    a redirect.
    """
    raw = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1").split("?", 1)[0].rstrip("/")
    if not path:
        return "/"
    parts = [unquote(part).replace("%", "%25").replace("/", "%2F") for part in path.split("/")]
    return "/".join(parts)


class RoutePath:
    """Route on segments split from the raw path (§3), trailing slashes stripped."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = {**scope, "path": route_path(scope)}
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

    def __init__(self, app: ASGIApp, allowed: Callable[[str | None], bool]) -> None:
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
