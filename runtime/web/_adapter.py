"""One adapter for every route: what all of them do first, in the protocol's order (§4.3).

    path parameters decoded → body read and capped → rate gate → the entity or
    operation the path names (404 before any authorisation) → the route

The Host guard ran before (middleware); the Origin guard sits inside authorisation,
which each route asks of the service, so identity and the describe levels that only
render never refuse on Origin.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from runtime import service
from runtime.mapping import Entity, Operation
from runtime.service import RuntimeState

from ._http import headers_of, only_params, read_body

Lookup = Literal["entity", "operation"]


@dataclass(frozen=True, slots=True)
class Call:
    request: Request
    state: RuntimeState
    headers: dict[str, str]
    path: dict[str, str]  # path parameters, decoded
    body: bytes
    found_entity: Entity | None = None
    found_operation: Operation | None = None

    @property
    def query(self) -> QueryParams:
        return self.request.query_params

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def entity(self) -> Entity:
        assert self.found_entity is not None, "the route was registered without lookup='entity'"
        return self.found_entity

    @property
    def operation(self) -> Operation:
        assert self.found_operation is not None, "registered without lookup='operation'"
        return self.found_operation

    def only(self, *allowed: str) -> None:
        """Refuse a query parameter the route does not take."""
        only_params(self.request, allowed)

    def precheck(self, *allowed: str) -> Callable[[], None]:
        """`only`, deferred: a write checks its parameters once the caller is authorised."""
        return lambda: only_params(self.request, allowed)


Handler = Callable[[Call], Awaitable[Response]]


def endpoint(
    handler: Handler,
    *,
    rate: str | None = None,
    audited: bool = False,
    body: bool = False,
    lookup: Lookup | None = None,
) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint of `handler`: rate class `rate` (a refusal audited when
    `audited`), the body read when `body`, the named entity or operation looked up."""

    async def run(request: Request) -> Response:
        state: RuntimeState = request.app.state.runtime
        path = {name: unquote(value) for name, value in request.path_params.items()}
        # The transport reads (and caps) the body before anything else looks at it.
        raw = await read_body(request) if body else b""
        headers = headers_of(request)
        if rate is not None:
            service.gate(state, headers, rate, audited=audited)
        entity = service.entity_named(state, path["entity"]) if lookup == "entity" else None
        op = service.operation_named(state, path["name"]) if lookup == "operation" else None
        return await handler(Call(request, state, headers, path, raw, entity, op))

    run.__name__ = handler.__name__
    return run
