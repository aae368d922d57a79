"""The FastAPI app: middleware, the route table, and errors in the protocol's envelope."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from runtime import service
from runtime.protocol import ProtocolError
from runtime.service import RuntimeState

from . import _a2app as a2app
from . import _ops as ops
from . import _plane as plane
from . import _realtime as realtime
from . import _records as records
from ._adapter import Call, Handler, Lookup, endpoint
from ._directory import APPS, ServedApp, directory_doc
from ._http import error_reply, log, reply
from ._middleware import Intake

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
READ = ["GET", "HEAD"]

RECORDS = "/api/collections/{entity}/records"
RECORD = RECORDS + "/{id}"
DESCRIBE = "/api/_a2app/describe"


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


def _others(*taken: list[str]) -> list[str]:
    """The methods no other route of the path takes: refused by the route, never by the
    framework, so the rate gate and lookups run first as for every verb."""
    used = {m for methods in taken for m in methods}
    return [m for m in ALL_METHODS if m not in used]


def _routes(app: FastAPI, directory: Sequence[ServedApp]) -> None:
    def add(
        path: str, handler: Handler, methods: list[str], *, rate: str | None = None,
        audited: bool = False, body: bool = False, lookup: Lookup | None = None,
    ) -> None:  # fmt: skip
        run = endpoint(handler, rate=rate, audited=audited, body=body, lookup=lookup)
        app.router.add_route(path, run, methods=methods, include_in_schema=False)

    # Identity, whoami and the model's describe levels: not metered (§18). The router
    # tries routes in order and no two groups below match the same path, so the order is
    # by traffic: the levels that only render (the most-read answers) come first.
    for path in ("/.well-known/a2app.json", "/api/_a2app"):
        add(path, a2app.identity, ALL_METHODS)
    add(DESCRIBE, a2app.describe_root, ALL_METHODS)
    add(DESCRIBE + "/{module}", a2app.describe_module, ALL_METHODS)
    add(DESCRIBE + "/{module}/{entity}", a2app.describe_entity, ALL_METHODS)
    add("/api/_a2app/whoami", a2app.whoami, ALL_METHODS)

    # Records: the shape of PocketBase's bindRecordCrudApi, rate class data; a refused
    # write attempt is audited, the body read (and capped) before the gate. Next after
    # the describe levels: every write and record read would otherwise be matched
    # against each route above it first, and no other pattern matches these paths.
    def record_write(path: str, handler: Handler, methods: list[str]) -> None:
        add(path, handler, methods, rate="data", audited=True, body=True, lookup="entity")

    add(RECORDS, records.list_records, READ, rate="data", lookup="entity")
    add(RECORD, records.view_record, READ, rate="data", lookup="entity")
    for path in (RECORDS, RECORD):
        record_write(path, records.create_record, ["POST"])
        record_write(path, records.update_record, ["PATCH"])
        record_write(path, records.delete_record, ["DELETE"])
        record_write(path, records.other_verb, _others(READ, ["POST", "PATCH", "DELETE"]))

    # Operations: rate class ops, the operation looked up before any authorisation.
    def operation(handler: Handler, methods: list[str]) -> None:
        add("/api/ops/{name}", handler, methods, rate="ops", audited=True, body=True,
            lookup="operation")  # fmt: skip

    operation(ops.run_operation, ["POST"])
    operation(ops.operation_other_verb, _others(["POST"]))

    async def apps(call: Call) -> Response:
        """The apps this runtime serves, this one among them (not metered, like identity)."""
        call.only()
        return reply(directory_doc(directory))

    add(APPS, apps, ALL_METHODS)
    add("/api/_a2app/receipts", a2app.receipts, ALL_METHODS, rate="data")
    # The app->agent plane (§8, §14): rate class data; a task action reads its body.
    add("/api/_a2app/events", plane.events, ALL_METHODS, rate="data")
    add("/api/_a2app/context", plane.context, ALL_METHODS, rate="data", body=True)
    add("/api/_a2app/tasks", plane.tasks, ALL_METHODS, rate="data")
    add("/api/_a2app/tasks/{id}", plane.task, ALL_METHODS, rate="data")
    add("/api/_a2app/tasks/{id}/{action}", plane.task_action, ALL_METHODS, rate="data", body=True)
    # Webhooks: the raw body is read (and capped) first, since the signature covers it.
    add("/api/_a2app/hooks/{name}", plane.hook, ALL_METHODS, rate="data", audited=True, body=True)
    # PocketBase's realtime over the change feed; the body is read for the subscriptions.
    add("/api/realtime", realtime.realtime, ALL_METHODS, rate="data", body=True)
    # The record and relation levels read the upstream: metered after the lookup.
    add(DESCRIBE + "/{module}/{entity}/{id}", a2app.describe_record, ALL_METHODS)
    add(DESCRIBE + "/{module}/{entity}/{id}/{relation}", a2app.describe_relation, ALL_METHODS)
    add(DESCRIBE + "/{rest:path}", a2app.describe_too_deep, ALL_METHODS)

    add("/api/_ops", ops.operations_listing, READ)
    add("/api/_ops", ops.listing_other_verb, _others(READ))
    add("/api/_jobs/{id}", ops.poll_job, READ, rate="data")
    add("/api/_jobs/{id}", ops.job_other_verb, _others(READ), rate="data")
    app.router.add_route("/{rest:path}", _not_found, methods=ALL_METHODS)


def create_app(state: RuntimeState, *, directory: Sequence[ServedApp] | None = None) -> FastAPI:
    """The app of one served mapping; `directory` is every app served beside it (by
    default this one alone, at the root), listed by `GET /api/_a2app/apps`."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.jobs.sweep()
        # before serving: an agent's first poll already sees what the data holds
        await state.triggers.at_start()
        state.triggers.every()
        state.start_feed()
        schedules = service.Schedules(state)
        schedules.start()
        try:
            yield
        finally:
            await schedules.aclose()
            await state.aclose()

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
    if directory is None:
        directory = (ServedApp(state.mapping.app.id, state.mapping.app.name, ""),)
    _routes(app, directory)
    hosts = service.allowed_hosts(state.mapping)
    app.add_middleware(Intake, allowed=lambda host: service.host_allowed(host, hosts))
    return app
