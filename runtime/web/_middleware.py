"""What runs before any route: the header cap, the Host guard, and the path routes match."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.protocol import ProtocolError

from ._http import HEADERS_LIMIT, error_reply

# Host values seen, with the guard's answer: a client sends the same one on every
# request. The values are the client's, so the memo is capped and starts over when full.
HOSTS_KEPT = 64


def route_path(scope: Scope) -> str:
    """The path the router matches: split from `raw_path` first, then each segment decoded.

    Starlette's `path` is decoded already, so an id holding `%2F` would split in two;
    a slash (and a percent sign) inside a segment stays encoded here, and the routes
    decode their path parameters once more. Trailing slashes are stripped, without
    a redirect.
    """
    raw: bytes = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1").split("?", 1)[0].rstrip("/")
    if not path:
        return "/"
    if "%" not in path:
        return path  # nothing to decode: every segment stays as it is
    parts = [unquote(part).replace("%", "%25").replace("/", "%2F") for part in path.split("/")]
    return "/".join(parts)


class Intake:
    """Every HTTP request, in one pass before any route: an over-long header section
    is refused in the protocol's envelope (413), then a foreign Host (403, the
    DNS-rebinding defence), then the path is set to the one routes match on (§3):
    segments split from the raw path, trailing slashes stripped."""

    def __init__(self, app: ASGIApp, allowed: Callable[[str | None], bool]) -> None:
        self.app = app
        self.allowed = allowed
        self._hosts: dict[bytes | None, bool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        size = 0
        host: bytes | None = None
        for name, value in scope["headers"]:
            size += len(name) + len(value) + 4
            if host is None and name == b"host":
                host = value
        if size > HEADERS_LIMIT:
            error = ProtocolError(
                "payload_too_large",
                f"The request headers are {size} bytes; at most {HEADERS_LIMIT} are read.",
                limitBytes=HEADERS_LIMIT,
            )
            await error_reply(error)(scope, receive, send)
            return
        if not self._host_allowed(host):
            shown = None if host is None else host.decode("latin-1")
            error = ProtocolError("forbidden_host", f"Host {shown} is not allowed.")
            await error_reply(error)(scope, receive, send)
            return
        path = route_path(scope)
        if path != scope["path"]:
            scope = {**scope, "path": path}
        await self.app(scope, receive, send)

    def _host_allowed(self, host: bytes | None) -> bool:
        allowed = self._hosts.get(host)
        if allowed is None:
            allowed = self.allowed(None if host is None else host.decode("latin-1"))
            if len(self._hosts) >= HOSTS_KEPT:
                self._hosts.clear()
            self._hosts[host] = allowed
        return allowed
