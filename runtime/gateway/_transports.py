"""The gateway's two transports: stdio for a desktop client, streamable HTTP at `/mcp`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.protocol import ProtocolError

from ._gateway import Gateway, bearer

MCP_PATH = "/mcp"


class UnknownToken(Exception):
    """The stdio client's agent token is known to none of the served apps."""


class _BearerOnly:
    """401 with `WWW-Authenticate: Bearer` (MCP's authorization convention) unless the
    request carries a token some served app knows; the token then names the grant.

    A browser Origin other than the apps' own is refused first, as MCP asks of a server
    on streamable HTTP (the runtime's Host guard already ran).
    """

    def __init__(
        self, gateway: Gateway, inner: StreamableHTTPASGIApp, origins: frozenset[str]
    ) -> None:
        self._gateway = gateway
        self._inner = inner
        self._origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if origin is not None and origin not in self._origins:
            error = ProtocolError("forbidden_origin", f"Origin {origin} is not allowed here.")
            await JSONResponse(error.body(), status_code=error.status)(scope, receive, send)
            return
        token = bearer(headers)
        if token is None or not await self._gateway.known(token):
            said = "is not known here" if token else "is missing"
            error = ProtocolError(
                "agent_token_required",
                f"The bearer token {said}: send Authorization: Bearer <agent token>.",
            )
            reply = JSONResponse(
                error.body(),
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
            await reply(scope, receive, send)
            return
        await self._inner(scope, receive, send)


class HttpEndpoint:
    """The gateway over streamable HTTP: `app` answers the MCP path, and `run()` (the
    SDK's session manager) must be running while it does."""

    def __init__(
        self,
        target: ASGIApp,
        bases: Mapping[str, str],
        *,
        owner_approvals: frozenset[str] = frozenset(),
        allowed_origins: frozenset[str] = frozenset(),
    ) -> None:
        self.gateway = Gateway(target, bases, owner_approvals=owner_approvals)
        self._manager = StreamableHTTPSessionManager(app=self.gateway.server)
        inner = StreamableHTTPASGIApp(self._manager)
        self.app: ASGIApp = _BearerOnly(self.gateway, inner, allowed_origins)

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        async with self._manager.run():
            try:
                yield
            finally:
                await self.gateway.aclose()


def mount_mcp(
    app: Starlette,
    bases: Mapping[str, str],
    *,
    target: ASGIApp | None = None,
    owner_approvals: frozenset[str] = frozenset(),
    allowed_origins: frozenset[str] = frozenset(),
    path: str = MCP_PATH,
) -> Gateway:
    """Serve the gateway over streamable HTTP at `path` of `app`, its session manager run
    inside `app`'s lifespan; tool calls go to `target` (the ASGI app answering every
    base; `app` itself when one app is served). `allowed_origins` are the apps' own UI
    origins (`serve.allowedOrigins`)."""
    endpoint = HttpEndpoint(target or app, bases, owner_approvals=owner_approvals,
                            allowed_origins=allowed_origins)  # fmt: skip
    # Host and Origin are the runtime's own guards (its middleware wraps this route too).
    # First, ahead of the runtime's catch-all route.
    app.router.routes.insert(0, Route(path, endpoint=endpoint.app))
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(served: Any) -> AsyncIterator[Any]:
        context: AbstractAsyncContextManager[Any] = outer(served)
        async with context as state, endpoint.run():
            yield state

    app.router.lifespan_context = lifespan
    return endpoint.gateway


async def serve_stdio(
    app: ASGIApp,
    lifespan: AbstractAsyncContextManager[object],
    bases: Mapping[str, str],
    token: str,
    *,
    owner_approvals: frozenset[str] = frozenset(),
) -> None:
    """Run `lifespan` (the runtime's) and answer MCP on stdin/stdout until the client
    closes it; tool calls go to `app`.

    Raises `UnknownToken` before reading stdin when no served app knows `token`: a
    desktop client shows a server that exits at once, not one whose every call fails.
    """
    gateway = Gateway(app, bases, token=token, owner_approvals=owner_approvals)
    try:
        async with lifespan:
            if not await gateway.known(token):
                raise UnknownToken(", ".join(bases))
            await _answer(gateway)
    finally:
        await gateway.aclose()


async def _answer(gateway: Gateway) -> None:
    async with stdio_server() as (read, write):
        server = gateway.server
        await server.run(read, write, server.create_initialization_options())
