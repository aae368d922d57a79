"""`/api/collections/{entity}/records[/{id}]`: guarded record access (protocol §9)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from runtime.mapping import Entity
from runtime.protocol import ProtocolError
from runtime.protocol._access import Caller
from runtime.query import parse_fields, project_fields

from . import _receipts as receipts
from . import _seen as seen
from . import _writes as writes
from ._http import headers_of, only_params, read_body, reply, segments
from ._reads import (
    RECORD_PARAMS,
    check_fields,
    fetch_record,
    list_records,
    refuse_stray_parts,
    shaped,
)
from ._state import RuntimeState

PREFIX = "/api/collections"
WRITE_VERBS = ("POST", "PATCH", "DELETE")
# A write answers with the stored record, which `fields` trims as on a read. No
# `expand`: reads after a write that failed would make a done write look failed.
WRITE_PARAMS = ("fields",)


async def records_route(request: Request) -> Response:
    state: RuntimeState = request.app.state.runtime
    seen.begin()
    parts = segments(request, PREFIX)
    if len(parts) not in (2, 3) or parts[1] != "records" or "" in parts:
        raise ProtocolError("not_found")
    # The transport reads (and caps) the body before anything else looks at it.
    body = await read_body(request) if request.method not in ("GET", "HEAD") else b""
    headers = headers_of(request)
    writes.metered(state, headers, "data", audited=request.method not in ("GET", "HEAD"))
    entity = state.mapping.entities.get(parts[0])
    if entity is None:
        raise ProtocolError(
            "unknown_entity",
            f"No entity {parts[0]!r}; declared: {', '.join(state.mapping.entities)}.",
        )
    record_id = parts[2] if len(parts) == 3 else None
    query = request.query_params
    if request.method in ("GET", "HEAD"):
        state.security.authorize(headers, f"data:{entity.name}:read", write=False)
        refuse_stray_parts(query)  # first: a filter cut at a raw `&&` is told as such
        only_params(request, RECORD_PARAMS)
        if record_id is None:
            return reply(await list_records(state, entity, query))
        record = await fetch_record(state, entity, record_id)
        return reply((await shaped(state, entity, [record], query))[0])
    target = f"data:{entity.name}"
    try:
        caller = state.security.authorize(headers, f"{target}:write", write=True)
    except ProtocolError as exc:
        writes.audit(state, None, target, "rejected", record_id=record_id, code=exc.code)
        raise
    if request.method not in WRITE_VERBS:
        raise ProtocolError("usage", f"{request.method} is not a records verb.", status=405)
    only_params(request, WRITE_PARAMS)
    if "fields" in query:
        check_fields(entity, query["fields"])  # before the write, not after it
    if state.reads_only:
        raise ProtocolError(
            "writes_not_verified",
            "Writes to this app were never proven by `a2map verify`; only reads are served.",
        )
    agent = headers.get("x-a2app-agent") or headers.get("x-lui-agent")
    try:
        result, receipt = await _write(
            state, entity, caller, request.method, record_id, body, headers
        )
    except ProtocolError as exc:
        writes.audit(
            state,
            caller,
            target,
            "rejected",
            record_id=record_id,
            code=exc.code,
            asserted_agent=agent,
        )
        raise
    done_id = str(result.get("id") or result.get("deleted"))
    writes.audit(state, caller, target, "ok", record_id=done_id, asserted_agent=agent)
    state.store.bump_data_version(state.mapping.app.id)
    if "fields" in query and "deleted" not in result:
        result = project_fields(result, parse_fields(query["fields"]))
    return reply(result, headers=receipts.header(receipt))


async def _write(
    state: RuntimeState,
    entity: Entity,
    caller: Caller,
    method: str,
    record_id: str | None,
    body: bytes,
    headers: dict[str, str],
) -> tuple[dict[str, Any], str]:
    if method == "DELETE":
        if record_id is None:
            raise ProtocolError("usage", "DELETE needs a record id in the path.")
        gone = await writes.delete(state, entity, record_id)
        receipt = await receipts.for_record(state, caller, "Deleted", entity, gone, ())
        return {"a2app": True, "ok": True, "deleted": record_id}, receipt
    scope = entity.name if method == "POST" else f"{entity.name}#{record_id}"
    key = headers.get("idempotency-key") if (method == "POST" or record_id) else None
    idem = writes.Idempotency(state, scope, key)
    idem.reserve()
    try:
        values = await writes.guarded(
            state, entity.fields, body, require=method == "POST", write_allow=entity.write_allow
        )
        if method == "POST":
            # A POST to .../records/{id} is a create: the path id is ignored (§9.3).
            stored = await writes.create(state, entity, values)
        elif record_id is None:
            raise ProtocolError("usage", "PATCH needs a record id in the path.")
        else:
            stored = await writes.update(state, entity, record_id, values)
    except BaseException as exc:
        idem.fail(exc)
        raise
    idem.complete(record_id=str(stored["id"]))
    verb = "Created" if method == "POST" else "Updated"
    receipt = await receipts.for_record(state, caller, verb, entity, stored, list(values))
    return stored, receipt
