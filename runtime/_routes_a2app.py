"""Identity, describe and whoami: everything under /api/_a2app that reads the model."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from runtime.protocol import ProtocolError
from runtime.protocol import _describe as describe
from runtime.protocol._access import Caller

from ._clock import server_now, tz_offset_minutes
from ._http import headers_of, only_params, reply, segments
from ._reads import fetch_record, lookup_labels
from ._routes_extras import receipts_feed
from ._security import rate_key
from ._state import RuntimeState

ADAPTER_VERSION = "0.1.0"
# More {id, label} items than fit a 2,000-character level, and the most ?all=true reads.
RELATION_SHOWN = 100
RELATION_ALL = 1_000
PREFIX = "/api/_a2app"


def identity(state: RuntimeState) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "a2app": True,
        "protocol": "0.1",
        "adapterVersion": ADAPTER_VERSION,
        "app": {"id": state.mapping.app.id, "name": state.mapping.app.name},
        "schemaVersion": state.schema_version,
        "dataVersion": state.store.data_version(state.mapping.app.id),
        "serverNow": server_now(),
        "serverTzOffsetMinutes": tz_offset_minutes(),
    }
    if state.mapping.app.version:
        doc["appVersion"] = state.mapping.app.version
    if state.unverified:
        doc["verified"] = False  # documented extension: served with --allow-unverified
    elif state.reads_only:
        doc["verified"] = "reads"
    return doc


IDENTITY_PARAMS = ("viewer", "leaving")
DESCRIBE_PARAMS = ("all", "find", "format")


async def identity_route(request: Request) -> Response:
    only_params(request, IDENTITY_PARAMS)
    return reply(identity(request.app.state.runtime))


async def a2app_route(request: Request) -> Response:
    state: RuntimeState = request.app.state.runtime
    parts = segments(request, PREFIX)
    if parts and parts[0] == "describe":
        return await _describe(request, state, parts[1:])
    if parts == ["whoami"]:
        return _whoami(request, state)
    if parts == ["receipts"]:
        return receipts_feed(request, state)
    raise ProtocolError("not_found")


def _whoami(request: Request, state: RuntimeState) -> Response:
    caller = state.security.authorize(headers_of(request), None, write=False)
    only_params(request, ())
    return reply(
        {
            "a2app": True,
            "credentialId": caller.credential_id,
            "agentName": caller.agent_name,
            "principal": caller.principal,
            "scopes": sorted(caller.scopes),
        }
    )


MODEL_CACHE_SIZE = 512


def _model_level(
    state: RuntimeState, key: tuple[Any, ...], caller: Caller, build: Callable[[], dict[str, Any]]
) -> Response:
    """Levels that read only the model depend on nothing but the caller's reach: render once."""
    full_key = (*key, caller.scopes)
    body = state.describe_cache.get(full_key)
    if body is None:
        body = json.dumps(build(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if len(state.describe_cache) >= MODEL_CACHE_SIZE:
            state.describe_cache.clear()
        state.describe_cache[full_key] = body
    return Response(body, media_type="application/json")


async def _describe(request: Request, state: RuntimeState, parts: list[str]) -> Response:
    mapping = state.mapping
    headers = headers_of(request)
    only_params(request, DESCRIBE_PARAMS)
    query = request.query_params
    show_all = query.get("all") == "true"
    if any(part == "" for part in parts) or len(parts) > 4:
        raise ProtocolError("usage", "Describe takes at most four path segments.", status=404)
    if not parts:
        caller = state.security.render_caller(headers)
        if query.get("format") == "flat":
            return _model_level(state, ("flat",), caller, lambda: describe.flat(mapping, caller))
        if "find" in query:
            term = query["find"]
            if not term:
                raise ProtocolError("usage", "find needs a search term.")
            key = ("find", term, show_all)
            return _model_level(
                state, key, caller, lambda: describe.find(mapping, term, caller, show_all=show_all)
            )
        return _model_level(
            state,
            ("root", show_all),
            caller,
            lambda: describe.root(mapping, caller, show_all=show_all),
        )
    module = mapping.module(parts[0])
    if module is None:
        raise ProtocolError(
            "unknown_module",
            f"No module {parts[0]!r}.",
            modules=[m.name for m in mapping.modules],
        )
    if len(parts) == 1:
        caller = state.security.render_caller(headers)
        return _model_level(
            state,
            ("module", module.name, show_all),
            caller,
            lambda: describe.module(mapping, module.name, caller, show_all=show_all),
        )
    entity = mapping.entities.get(parts[1])
    if entity is None or entity.module != module.name:
        where = f" It is in module {entity.module!r}." if entity is not None else ""
        raise ProtocolError("unknown_entity", f"No entity {parts[1]!r} in {module.name!r}.{where}")
    if len(parts) == 2:
        caller = state.security.render_caller(headers)
        if not caller.can_read(entity.name):
            scope = f"data:{entity.name}:read"
            raise ProtocolError("insufficient_scope", f"Reading needs {scope}.", required=scope)
        return _model_level(
            state,
            ("entity", entity.name, show_all),
            caller,
            lambda: describe.entity(mapping, entity, caller, show_all=show_all),
        )
    state.limiter.hit(rate_key(headers), "data")
    caller = state.security.authorize(headers, f"data:{entity.name}:read", write=False)
    record = await fetch_record(state, entity, parts[2])
    if len(parts) == 3:
        return reply(describe.record(mapping, entity, caller, record))
    names = describe.relation_names(entity)
    if parts[3] not in names:
        raise ProtocolError("unknown_relation", f"No relation {parts[3]!r}.", relations=names)
    target_name = entity.fields[parts[3]].entity
    assert target_name is not None
    if not caller.can_read(target_name):
        scope = f"data:{target_name}:read"
        raise ProtocolError("insufficient_scope", f"Reading needs {scope}.", required=scope)
    ids = [str(v) for v in record.get(parts[3]) or []]
    # Only what can be shown is looked up: a level fits far fewer items than this,
    # and the ids past it are trimmed (and counted) all the same.
    limit = RELATION_ALL if show_all else RELATION_SHOWN
    if show_all and len(ids) > RELATION_ALL:
        raise ProtocolError(
            "usage",
            f"{parts[3]} holds {len(ids)} ids, more than the {RELATION_ALL} one level "
            f"lists; read them with GET /api/collections/{target_name}/records?filter=…",
        )
    items = await lookup_labels(state, mapping.entities[target_name], ids[:limit])
    items += [{"id": i, "label": None} for i in ids[limit:]]
    return reply(
        describe.relation(
            entity, str(record["id"]), parts[3], target_name, items, show_all=show_all
        )
    )
