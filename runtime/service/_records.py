"""Record writes against the upstream: create, update and delete, each proven by a fresh read.

Nothing is reported done that a fresh read of the upstream does not show (§9 to §11).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator
from collections.abc import Mapping as AbcMapping
from typing import Any

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError, not_stored_error, read_back, ref_ids
from runtime.query import Compare, Literal, Path
from runtime.upstream import delete_not_done, native_filter, unproven_unreferenced

from ._guard import named_records, prefetch_refs, upstream_refusal
from ._reach import Reach

REFERENCE_EXAMPLES = 10


async def create(reach: Reach, entity: Entity, body: dict[str, Any]) -> dict[str, Any]:
    fields = entity.create_fields()
    async with _labels_alongside(reach, fields, body) as labels:
        try:
            written = await reach.upstream.create_record(entity, _declared_only(entity, body))
        except ProtocolError as exc:
            if labels is not None:
                await labels
            raise await upstream_refusal(reach, fields, body, exc) from exc
        record_id = str(written["id"])
        chosen = body.get("id") if entity.id_client else None
        if chosen is not None and record_id != str(chosen):
            # The upstream gave the record another id than the one the client chose.
            raise not_stored_error(
                entity.name, record_id, [{"code": "not_stored", "field": "id", "expected": chosen,
                                          "got": record_id}],
            )  # fmt: skip
        return await _read_back(reach, entity, record_id, body, labels)


async def update(
    reach: Reach, entity: Entity, record_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    # A ref to the record being written is read after the write: its label may change.
    names_itself = any(
        f.entity == entity.name and record_id in ref_ids(f, body[name])
        for name, f in entity.fields.items() if name in body and f.entity is not None
    )  # fmt: skip
    async with _labels_alongside(reach, entity.fields, body, now=not names_itself) as labels:
        try:
            written = await reach.upstream.update_record(
                entity, record_id, _declared_only(entity, body)
            )
        except ProtocolError as exc:
            if labels is not None:
                await labels
            raise await upstream_refusal(reach, entity.fields, body, exc) from exc
        if written is None:
            raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
        return await _read_back(reach, entity, record_id, body, labels)


@contextlib.asynccontextmanager
async def _labels_alongside(
    reach: Reach, fields: AbcMapping[str, Field], body: dict[str, Any], *, now: bool = True
) -> AsyncIterator[Awaitable[None] | None]:
    """The records a write names, read for its receipt while the write is under way (or,
    `now` false, when it is awaited); never left running past the write."""
    wanted = named_records(reach, fields, body)
    if not wanted:
        yield None
        return
    if not now:
        yield _Later(lambda: prefetch_refs(reach, wanted))
        return
    task = asyncio.ensure_future(prefetch_refs(reach, wanted))
    try:
        yield task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class _Later:
    """An awaitable that starts its work only when awaited (none is left un-awaited)."""

    def __init__(self, start: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._start = start

    def __await__(self) -> Generator[Any, None, None]:
        return self._start().__await__()


def _declared_only(entity: Entity, body: dict[str, Any]) -> dict[str, Any]:
    # writeAllow keys pass through unvalidated, as the protocol allows; a client-chosen
    # id is sent too.
    fields = entity.create_fields()
    return {k: v for k, v in body.items() if k in fields or k in entity.write_allow}


_UNREAD = (
    "The write was answered, but the record could not be read back: read it before "
    "reporting the write as done or retrying it."
)


async def _read_back(
    reach: Reach, entity: Entity, record_id: str, body: dict[str, Any],
    labels: Awaitable[None] | None,
) -> dict[str, Any]:  # fmt: skip
    """A fresh read of what was stored, compared value by value with what was asked;
    the records the write names (`labels`) finish being read for its receipt meanwhile."""
    try:
        read = reach.upstream.get_record(entity, record_id)
        stored = await read if labels is None else (await asyncio.gather(read, labels))[0]
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


async def referenced_by(reach: Reach, target: Entity, record_id: str) -> list[dict[str, Any]]:
    """Records whose restricting refs still point at `record_id` (protocol §9.5)."""
    found: list[dict[str, Any]] = []
    for other in reach.mapping.entities.values():
        for field in other.fields.values():
            if not field.is_ref or field.entity != target.name or field.on_delete != "restrict":
                continue
            ids = await _referencing(reach, other, field, record_id)
            if ids:
                found.append({"entity": other.name, "field": field.name, "ids": ids})
    return found


async def _referencing(reach: Reach, other: Entity, field: Field, record_id: str) -> list[str]:
    params: dict[str, str] = {}
    op = "=" if field.type == "ref" else "?="
    spelled = other.filters.get(field.name, {}).get(op)
    # A native filter language is told a whole comparison, not a bare value.
    asked = Compare(Path((field.name,)), op, Literal(record_id))
    native = native_filter(other, asked, reach.upstream.dialect)
    if native is not None:
        params = dict(native.params)
    elif spelled is not None:
        encoded = reach.upstream.dialect.encode_value(field, record_id)
        if encoded is not None:
            params[spelled.param] = encoded
    try:
        return await _scan_referrers(reach, other, field, record_id, params)
    except ProtocolError as exc:
        if not params or not exc.is_("upstream_error", "upstream_rejected"):
            raise
    # The upstream cannot answer the narrowed listing: cannot tell from it, so every
    # record (within the scan bound) is read and checked here; never assumed unreferenced.
    try:
        return await _scan_referrers(reach, other, field, record_id, {})
    except ProtocolError as exc:
        if not exc.is_("upstream_error", "upstream_rejected"):
            raise
        raise ProtocolError(
            "upstream_error",
            f"Cannot tell whether a {other.name} record references this one: the upstream "
            f"does not list them ({exc.message}); nothing was deleted.",
        ) from exc


async def _scan_referrers(
    reach: Reach, other: Entity, field: Field, record_id: str, params: dict[str, str]
) -> list[str]:
    scan = reach.upstream.scan(other, params, limit=reach.mapping.serve.scan_limit)
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
        raise unproven_unreferenced(other.name, reach.mapping.serve.scan_limit)
    return ids


async def delete(reach: Reach, entity: Entity, record_id: str) -> dict[str, Any]:
    """Delete, proven by a second read; returns the record as it was."""
    before = await reach.upstream.get_record(entity, record_id)
    if before is None:
        raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
    blockers = await referenced_by(reach, entity, record_id)
    if blockers:
        raise ProtocolError(
            "record_referenced",
            f"{entity.name} record {record_id!r} is still referenced; nothing was deleted.",
            referencedBy=blockers,
            resolution="Change or delete the referencing records first, then delete this one.",
        )
    if await reach.upstream.delete_record(entity, record_id) is None:
        raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
    if await reach.upstream.get_record(entity, record_id) is not None:
        raise delete_not_done(entity.name, record_id)
    return before
