"""Record writes through the chain: create, update, delete (protocol §9.3 to §9.5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from runtime.mapping import Entity
from runtime.protocol import Caller, ProtocolError
from runtime.query import parse_fields, project_fields
from runtime.store import FeedAction

from . import _receipts as receipts
from ._chain import Done, Order, Write, authorise_write, run_write
from ._guard import guarded
from ._reads import check_fields
from ._records import create, delete, update
from ._state import RuntimeState

# Checks the transport makes once the caller is authorised (its query parameters).
Precheck = Callable[[], None]
Answer = tuple[dict[str, Any], dict[str, str]]  # the body, and the receipt's header


def _write(
    entity: Entity, record_id: str | None, idem_key: str | None, idem_scope: str,
    action: FeedAction = "update",
) -> Write:  # fmt: skip
    return Write(
        target=f"data:{entity.name}",
        scope=f"data:{entity.name}:write",
        write=True,
        order=Order.IDEMPOTENCY_FIRST,
        idem_scope=idem_scope,
        idem_key=idem_key,
        record_id=record_id,
        feed=(entity.name, action),
    )


def _refuse_unverified(
    state: RuntimeState, entity: Entity, op: str, values: dict[str, Any] | None = None
) -> None:
    """403 `writes_not_verified` when verify refused this write (or a field it sends)."""
    refused = state.withheld.write_refusals(entity.name, op, values or ())
    if not refused:
        return
    what = "writes to" if entity.name in state.withheld.writes else f"this {op} of"
    raise ProtocolError(
        "writes_not_verified",
        f"`a2map verify` refused {what} {entity.name} ({'; '.join(refused)}); "
        "what it proved is served.",
        refusedClaims=list(refused),
    )


def _checks(
    state: RuntimeState, entity: Entity, precheck: Precheck, fields: str | None, op: str
) -> Callable[[Caller], None]:
    def checks(caller: Caller) -> None:
        precheck()
        if fields is not None:
            check_fields(entity, fields)  # before the write, not after it
        if state.reads_only:
            raise ProtocolError(
                "writes_not_verified",
                "Writes to this app were never proven by `a2map verify`; only reads are served.",
            )
        _refuse_unverified(state, entity, op)

    return checks


def _answer(done: Done, text: str, fields: str | None) -> Answer:
    result: dict[str, Any] = done.result
    if fields is not None and "deleted" not in result:
        result = project_fields(result, parse_fields(fields))
    return result, receipts.header(text)


async def create_record(
    state: RuntimeState, headers: dict[str, str], entity: Entity, body: bytes,
    *, record_id: str | None, fields: str | None, precheck: Precheck,
) -> Answer:  # fmt: skip
    """A create; a POST to `.../records/{id}` is one too, the path id ignored (§9.3)."""
    write = _write(entity, record_id, headers.get("idempotency-key"), entity.name, "create")

    async def guard() -> dict[str, Any]:
        values = await guarded(
            state, entity.create_fields(), body, require=True, write_allow=entity.write_allow
        )
        _refuse_unverified(state, entity, "create", values)
        return values

    async def act(caller: Caller, values: dict[str, Any]) -> Done:
        stored = await create(state, entity, values)
        return Done(stored, str(stored["id"]))

    async def receipt(caller: Caller, values: dict[str, Any], done: Done) -> receipts.Kept:
        return await receipts.for_record(state, "Created", entity, done.result, list(values))

    done, text = await run_write(
        state, headers, write, checks=_checks(state, entity, precheck, fields, "create"),
        guard=guard, act=act, receipt=receipt,
    )  # fmt: skip
    return _answer(done, text, fields)


async def update_record(
    state: RuntimeState, headers: dict[str, str], entity: Entity, body: bytes,
    *, record_id: str | None, fields: str | None, precheck: Precheck,
) -> Answer:  # fmt: skip
    key = headers.get("idempotency-key") if record_id else None
    write = _write(entity, record_id, key, f"{entity.name}#{record_id}")

    async def guard() -> dict[str, Any]:
        values = await guarded(
            state, entity.fields, body, require=False, write_allow=entity.write_allow,
            update=True,
        )  # fmt: skip
        _refuse_unverified(state, entity, "update", values)
        return values

    async def act(caller: Caller, values: dict[str, Any]) -> Done:
        if record_id is None:
            raise ProtocolError("usage", "PATCH needs a record id in the path.")
        stored = await update(state, entity, record_id, values)
        return Done(stored, str(stored["id"]))

    async def receipt(caller: Caller, values: dict[str, Any], done: Done) -> receipts.Kept:
        return await receipts.for_record(state, "Updated", entity, done.result, list(values))

    done, text = await run_write(
        state, headers, write, checks=_checks(state, entity, precheck, fields, "update"),
        guard=guard, act=act, receipt=receipt,
    )  # fmt: skip
    return _answer(done, text, fields)


async def delete_record(
    state: RuntimeState, headers: dict[str, str], entity: Entity,
    *, record_id: str | None, fields: str | None, precheck: Precheck,
) -> Answer:  # fmt: skip
    """A delete: no body, no idempotency key; refused while a `restrict` ref points here."""
    write = _write(entity, record_id, None, "", "delete")
    gone: dict[str, Any] = {}

    async def act(caller: Caller, values: dict[str, Any]) -> Done:
        if record_id is None:
            raise ProtocolError("usage", "DELETE needs a record id in the path.")
        gone.update(await delete(state, entity, record_id))
        return Done({"a2app": True, "ok": True, "deleted": record_id}, record_id)

    async def receipt(caller: Caller, values: dict[str, Any], done: Done) -> receipts.Kept:
        return await receipts.for_record(state, "Deleted", entity, gone, ())

    done, text = await run_write(
        state, headers, write, checks=_checks(state, entity, precheck, fields, "delete"),
        act=act, receipt=receipt,
    )  # fmt: skip
    return _answer(done, text, fields)


def refuse_verb(
    state: RuntimeState, headers: dict[str, str], entity: Entity, record_id: str | None,
    method: str,
) -> NoReturn:  # fmt: skip
    """A verb records do not take: authorised (and audited) as a write first, as every
    other verb there is, then refused."""
    authorise_write(state, headers, _write(entity, record_id, None, ""))
    raise ProtocolError("usage", f"{method} is not a records verb.", status=405)
