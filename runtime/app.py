"""The FastAPI app: thin routes wiring mapping, security, store and upstream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from runtime.protocol import ProtocolError

from ._http import HeadLimit, HostGuard, StripTrailingSlash, error_reply, log
from ._jobs import JobRunner
from ._routes_a2app import a2app_route, identity_route
from ._routes_extras import jobs_route, ops_listing_route
from ._routes_ops import ops_route
from ._routes_records import records_route
from ._security import allowed_hosts, host_allowed
from ._state import RuntimeState

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


async def _protocol_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProtocolError)
    return error_reply(exc)


async def _framework_error(request: Request, exc: Exception) -> Response:
    """Framework 404/405/422 never reach a client in their own shape."""
    if isinstance(exc, HTTPException) and exc.status_code == 405:
        return error_reply(ProtocolError("usage", "Method not allowed here.", status=405))
    if isinstance(exc, HTTPException) and exc.status_code == 404:
        return error_reply(ProtocolError("not_found"))
    return error_reply(ProtocolError("usage", "The request could not be read."))


async def _unexpected(request: Request, exc: Exception) -> Response:
    # The message names the exception type only: a foreign body or a secret
    # could sit in its text.
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return error_reply(ProtocolError("adapter_error", f"Unexpected {type(exc).__name__}."))


async def _not_found(request: Request) -> Response:
    raise ProtocolError("not_found")


def create_app(state: RuntimeState) -> FastAPI:
    state.jobs = JobRunner(state)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.jobs.sweep()
        try:
            yield
        finally:
            await state.jobs.aclose()
            await state.upstream.aclose()

    app = FastAPI(
        title=f"A2App: {state.mapping.app.name or state.mapping.app.id}",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        redirect_slashes=False,
        lifespan=lifespan,
    )
    app.state.runtime = state
    app.add_exception_handler(ProtocolError, _protocol_error)
    app.add_exception_handler(HTTPException, _framework_error)
    app.add_exception_handler(RequestValidationError, _framework_error)
    app.add_exception_handler(Exception, _unexpected)
    for path in ("/.well-known/a2app.json", "/api/_a2app"):
        app.router.add_route(path, identity_route, methods=ALL_METHODS, include_in_schema=False)
    app.router.add_route("/api/_a2app/{rest:path}", a2app_route, methods=ALL_METHODS)
    app.router.add_route("/api/collections/{rest:path}", records_route, methods=ALL_METHODS)
    app.router.add_route("/api/ops/{rest:path}", ops_route, methods=ALL_METHODS)
    app.router.add_route("/api/_ops", ops_listing_route, methods=ALL_METHODS)
    app.router.add_route("/api/_jobs/{rest:path}", jobs_route, methods=ALL_METHODS)
    app.router.add_route("/{rest:path}", _not_found, methods=ALL_METHODS)
    hosts = allowed_hosts(state.mapping)
    app.add_middleware(HostGuard, allowed=lambda host: host_allowed(host, hosts))
    app.add_middleware(StripTrailingSlash)
    app.add_middleware(HeadLimit)  # added last, so it runs first
    return app
