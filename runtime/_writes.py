"""Record writes: idempotency, the guard, refs, the upstream write, read-back (protocol §9 to §12).

Nothing is reported done that a fresh read of the upstream does not show.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping as AbcMapping
from typing import Any

from runtime.mapping import Entity, Field
from runtime.protocol import (
    ProtocolError,
    Violation,
    check,
    guard_error,
    not_stored_error,
    parse_body,
    read_back,
    ref_ids,
)
from runtime.protocol._access import Caller
from runtime.query import Compare, Literal, Path
from runtime.upstream import native_filter

from . import _seen as seen
from ._clock import server_now
from ._fanout import bounded
from ._security import rate_key
from ._state import RuntimeState

IDEM_TTL_SECONDS = 24 * 3600
REFERENCE_EXAMPLES = 10


class Idempotency:
    """One `Idempotency-Key` for the life of a request: reserved, then kept or freed.

    A key is freed only when nothing can have been written: the request failed
    before the upstream write was sent, or the upstream refused it. After any
    failure the write may have survived, the key is kept with what is known (the
    record id, or that the outcome is unknown), so a retry answers 409 instead of
    writing a second time.
    """

    def __init__(self, state: RuntimeState, scope: str, key: str | None) -> None:
        self.state, self.scope, self.key = state, scope, key
        self.held = False

    def reserve(self) -> None:
        if not self.key:
            return
        app = self.state.mapping.app.id
        found = self.state.store.reserve_idempotency_key(
            app, self.scope, self.key, IDEM_TTL_SECONDS
        )
        if found.status == "fresh":
            self.held = True
            return
        extra: dict[str, Any] = {}
        if found.record_id is not None:
            extra["id"] = found.record_id
        if found.operation is not None:
            extra["operation"] = found.operation
        if found.status == "pending":
            said = " is still in progress"
        elif found.outcome == "unknown":
            extra["outcomeUnknown"] = True
            said = (
                " was used by a request that may or may not have been carried out; "
                "read the upstream's state before retrying with a new key"
            )
        elif found.outcome == "partial":
            said = " was used by a write that landed, but not as asked"
        else:
            said = " was already used"
        raise ProtocolError("duplicate_request", f"Idempotency key {self.key!r}{said}.", **extra)

    def complete(self, *, record_id: str | None = None, operation: str | None = None) -> None:
        self._finish(record_id=record_id, operation=operation, outcome=None)

    def fail(self, exc: BaseException, *, operation: str | None = None) -> None:
        """After a failed first call: keep the key if the write may have landed, else free it."""
        if not (self.held and self.key):
            return
        extra = exc.extra if isinstance(exc, ProtocolError) else {}
        record_id = extra.get("id")
        if isinstance(exc, ProtocolError) and exc.code == "not_stored":
            self._finish(record_id=record_id, operation=operation, outcome="partial")
        elif extra.get("outcomeUnknown") or not isinstance(exc, Exception):
            # Cancelled mid-call (the client went away) counts as unknown too.
            self._finish(record_id=record_id, operation=operation, outcome="unknown")
        else:
            self.state.store.release_idempotency_key(
                self.state.mapping.app.id, self.scope, self.key
            )
            self.held = False

    def _finish(self, *, record_id: str | None, operation: str | None, outcome: str | None) -> None:
        if self.held and self.key:
            self.state.store.complete_idempotency_key(
                self.state.mapping.app.id,
                self.scope,
                self.key,
                record_id=record_id,
                operation=operation,
                outcome=outcome,
            )
            self.held = False


def audit(
    state: RuntimeState,
    caller: Caller | None,
    target: str,
    outcome: str,
    *,
    record_id: str | None = None,
    code: str | None = None,
    asserted_agent: str | None = None,
) -> None:
    entry = {
        "target": target,
        "outcome": outcome,
        "credential_id": caller.credential_id if caller else None,
        "agent_name": caller.agent_name if caller else None,
        "asserted_agent": asserted_agent,
        "principal": caller.principal if caller else None,
        "record_id": record_id,
        "code": code,
    }
    state.store.add_audit(
        app_id=state.mapping.app.id,
        target=target,
        outcome=outcome,
        credential_id=entry["credential_id"],
        agent_name=entry["agent_name"],
        asserted_agent=asserted_agent,
        principal=entry["principal"],
        record_id=record_id,
        code=code,
    )
    if state.audit_file is not None:
        line = json.dumps({"at": server_now(), "app": state.mapping.app.id, **entry})
        # One short O_APPEND write per entry: lines from several processes never interleave.
        fd = os.open(state.audit_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)


def metered(state: RuntimeState, headers: dict[str, str], klass: str, *, audited: bool) -> None:
    """The rate gate; a refused write attempt is audited (target `rate:<class>`)."""
    try:
        state.limiter.hit(rate_key(headers), klass)
    except ProtocolError as exc:
        if audited:
            audit(state, None, f"rate:{klass}", "rejected", code=exc.code)
        raise


async def guarded(
    state: RuntimeState,
    fields: AbcMapping[str, Field],
    raw: bytes | None,
    *,
    require: bool,
    write_allow: tuple[str, ...] = (),
    params: bool = False,
) -> dict[str, Any]:
    """The body, parsed and guarded, with every violation (dangling refs too) in one 400."""
    body = (parse_body(raw) if raw else None) or {}
    found = check(fields, body, require=require, write_allow=write_allow, params=params)
    if not any(v.code == "invalid_ref" and v.expected.startswith("at most") for v in found):
        # Ids the guard found malformed are not read: they name nothing by construction.
        refused = {v.field for v in found}
        found += await _dangling(state, fields, body, refused)
    if found:
        order = {key: n for n, key in enumerate(body)}
        found.sort(key=lambda v: (v.code == "missing_required", order.get(v.field, len(order))))
        raise guard_error(found, server_now())
    return body


async def _dangling(
    state: RuntimeState, fields: AbcMapping[str, Field], body: AbcMapping[str, Any],
    refused: set[str],
) -> list[Violation]:  # fmt: skip
    """A ref that names no record is refused before the upstream sees the write."""
    wanted: list[tuple[Field, Any, str]] = []
    for name, value in body.items():
        field = fields.get(name)
        if field is None or field.entity is None or name in refused:
            continue
        wanted.extend((field, value, ref) for ref in dict.fromkeys(ref_ids(field, value)))
    if not wanted:
        return []
    entities = state.mapping.entities
    found = await bounded(
        state.fanout, (seen.get_record(state, entities[f.entity or ""], i) for f, _, i in wanted)
    )
    violations: list[Violation] = []
    reported: set[str] = set()
    for (field, value, _ref_id), record in zip(wanted, found, strict=True):
        if record is None and field.name not in reported:
            reported.add(field.name)
            violations.append(
                Violation(
                    "invalid_ref", field.name, f"the id of an existing {field.entity} record", value
                )
            )
    return violations


async def create(state: RuntimeState, entity: Entity, body: dict[str, Any]) -> dict[str, Any]:
    written = await state.upstream.create_record(entity, _declared_only(entity, body))
    record_id = str(written["id"])
    return await _read_back(state, entity, record_id, body)


async def update(
    state: RuntimeState, entity: Entity, record_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    written = await state.upstream.update_record(entity, record_id, _declared_only(entity, body))
    if written is None:
        raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
    return await _read_back(state, entity, record_id, body)


def _declared_only(entity: Entity, body: dict[str, Any]) -> dict[str, Any]:
    # writeAllow keys pass through unvalidated, as the protocol allows.
    return {k: v for k, v in body.items() if k in entity.fields or k in entity.write_allow}


_UNREAD = (
    "The write was answered, but the record could not be read back: read it before "
    "reporting the write as done or retrying it."
)


async def _read_back(
    state: RuntimeState, entity: Entity, record_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    """A fresh read of what was stored, compared value by value with what was asked."""
    try:
        stored = await state.upstream.get_record(entity, record_id)
    except ProtocolError as exc:
        raise exc.adding(_UNREAD, id=record_id, outcomeUnknown=True) from exc
    if stored is None:
        raise ProtocolError(
            "not_stored",
            f"Rejected by a2app (not_stored): the upstream app answered the write but has no "
            f'{entity.name} record "{record_id}". Do NOT report this write as done.',
            violations=[],
            id=record_id,
        )
    differences = read_back(entity.fields, body, stored)
    if differences:
        raise not_stored_error(entity.name, record_id, differences)
    return stored


async def referenced_by(
    state: RuntimeState, target: Entity, record_id: str
) -> list[dict[str, Any]]:
    """Records whose restricting refs still point at `record_id` (protocol §9.5)."""
    found: list[dict[str, Any]] = []
    for other in state.mapping.entities.values():
        for field in other.fields.values():
            if not field.is_ref or field.entity != target.name or field.on_delete != "restrict":
                continue
            ids = await _referencing(state, other, field, record_id)
            if ids:
                found.append({"entity": other.name, "field": field.name, "ids": ids})
    return found


async def _referencing(
    state: RuntimeState, other: Entity, field: Field, record_id: str
) -> list[str]:
    params: dict[str, str] = {}
    op = "=" if field.type == "ref" else "?="
    spelled = other.filters.get(field.name, {}).get(op)
    # A native filter language is told a whole comparison, not a bare value.
    asked = Compare(Path((field.name,)), op, Literal(record_id))
    native = native_filter(other, asked, state.upstream.dialect)
    if native is not None:
        params = dict(native.params)
    elif spelled is not None:
        encoded = state.upstream.dialect.encode_value(field, record_id)
        if encoded is not None:
            params[spelled.param] = encoded
    scan = state.upstream.scan(other, params, limit=state.mapping.serve.scan_limit)
    ids: list[str] = []
    async for record in scan:
        value = record.get(field.name)
        hit = record_id in value if isinstance(value, list) else value == record_id
        if hit:
            ids.append(str(record["id"]))
            if len(ids) >= REFERENCE_EXAMPLES:
                await scan.aclose()
                break
    if scan.truncated and not ids:
        raise ProtocolError(
            "upstream_error",
            f"Cannot prove that no {other.name} record references this one within "
            f"{state.mapping.serve.scan_limit} records; nothing was deleted.",
        )
    return ids


async def delete(state: RuntimeState, entity: Entity, record_id: str) -> dict[str, Any]:
    """Delete, proven by a second read; returns the record as it was."""
    before = await state.upstream.get_record(entity, record_id)
    if before is None:
        raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
    blockers = await referenced_by(state, entity, record_id)
    if blockers:
        raise ProtocolError(
            "record_referenced",
            f"{entity.name} record {record_id!r} is still referenced; nothing was deleted.",
            referencedBy=blockers,
            resolution="Change or delete the referencing records first, then delete this one.",
        )
    if await state.upstream.delete_record(entity, record_id) is None:
        raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
    if await state.upstream.get_record(entity, record_id) is not None:
        raise ProtocolError(
            "upstream_error",
            f"The upstream app answered the delete, but {entity.name} record {record_id!r} "
            "is still there. Do NOT report it deleted.",
        )
    return before
