"""Identity, describe, whoami and the receipts feed: the routes under /api/_a2app."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from starlette.responses import Response

from runtime import service

from ._adapter import Call
from ._http import reply

IDENTITY_PARAMS = ("viewer", "leaving")
DESCRIBE_PARAMS = ("all", "find", "format")
NO_QUERY: Mapping[str, str] = MappingProxyType({})
# A rendered level comes back as the same bytes for as long as the describer keeps it,
# so its response is made once and sent again: nothing writes to a response once made.
# Bounded as the describer's cache is (a `find` term is the client's).
RESPONSES_KEPT = 512
_responses: dict[bytes, Response] = {}


def _json(body: bytes) -> Response:
    response = _responses.get(body)
    if response is None:
        response = Response(body, media_type="application/json")
        if len(_responses) >= RESPONSES_KEPT:
            _responses.clear()
        _responses[body] = response
    return response


def _query(call: Call) -> Mapping[str, str]:
    """The query as the rendered levels read it: without one, nothing is parsed."""
    return call.query if call.request.scope["query_string"] else NO_QUERY


async def identity(call: Call) -> Response:
    call.only(*IDENTITY_PARAMS)
    return reply(service.identity(call.state))


async def whoami(call: Call) -> Response:
    caller = service.authorise(call.state, call.headers)
    call.only()
    return reply(service.whoami(caller))


async def receipts(call: Call) -> Response:
    """`GET /api/_a2app/receipts?since=<cursor>`: what happened, in the system's own words."""
    caller = service.authorise(call.state, call.headers)
    call.only("since")
    since = call.query.get("since", "0") or "0"
    return reply(service.receipts_feed(call.state, caller, since))


async def describe_root(call: Call) -> Response:
    call.only(*DESCRIBE_PARAMS)
    return _json(service.describe_root(call.state, call.headers, _query(call)))


async def describe_module(call: Call) -> Response:
    call.only(*DESCRIBE_PARAMS)
    module = call.path["module"]
    return _json(service.describe_module(call.state, call.headers, _query(call), module))


async def describe_entity(call: Call) -> Response:
    call.only(*DESCRIBE_PARAMS)
    path = call.path
    body = service.describe_entity(
        call.state, call.headers, _query(call), path["module"], path["entity"]
    )
    return _json(body)


async def describe_record(call: Call) -> Response:
    call.only(*DESCRIBE_PARAMS)
    path = call.path
    return reply(
        await service.describe_record(
            call.state, call.headers, path["module"], path["entity"], path["id"]
        )
    )


async def describe_relation(call: Call) -> Response:
    call.only(*DESCRIBE_PARAMS)
    path = call.path
    doc = await service.describe_relation(
        call.state, call.headers, call.query,
        path["module"], path["entity"], path["id"], path["relation"],
    )  # fmt: skip
    return reply(doc)


async def describe_too_deep(call: Call) -> Response:
    """An empty segment, or more than four of them."""
    call.only(*DESCRIBE_PARAMS)
    service.refuse_depth()
