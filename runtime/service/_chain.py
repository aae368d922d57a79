"""The write chain, written once (protocol §4.3, §12, §20):

    authorise → checks → idempotency ⇄ guard → act (upstream, read-back)
              → receipt → one commit: idempotency kept, receipt, audit, dataVersion

Record writes reserve the key before the guard runs; operations guard their
arguments first (`Order`). Which refusals are audited differs the same way and is
said by the `Write` too, never by a copy of the chain.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from runtime.protocol import Caller, ProtocolError
from runtime.store import FeedAction, WriteEnd

from . import _seen as seen
from ._audit import audit, entry, to_file
from ._idempotency import Idempotency
from ._receipts import Kept
from ._state import RuntimeState


class Order(enum.Enum):
    IDEMPOTENCY_FIRST = "idempotency-first"  # record writes
    GUARD_FIRST = "guard-first"  # operations: a malformed call never holds a key


@dataclass(frozen=True, slots=True)
class Done:
    """What a write did: its answer, the record it touched, whether data changed."""

    result: Any
    record_id: str | None = None
    changed: bool = True


@dataclass(frozen=True, slots=True)
class Write:
    target: str  # the audit's target: `data:<entity>` or `op:<name>`
    scope: str  # what authorise asks for
    write: bool  # authorise as a write (a credential is needed)
    order: Order
    idem_scope: str = ""
    idem_key: str | None = None
    operation: str | None = None  # kept with the idempotency key
    record_id: str | None = None  # the path's id, audited with a refusal
    audit_unauthorised: bool = True  # records audit a refused authorisation; operations do not
    unaudited: frozenset[str] = frozenset()  # codes that are no attempt (§20)
    caller: Caller | None = None  # the runtime's own call (a schedule): no credential to check
    feed: tuple[str, FeedAction] | None = None  # a record write: (entity, action) for the feed


Checks = Callable[[Caller], None]
Guard = Callable[[], Awaitable[dict[str, Any]]]
Act = Callable[[Caller, dict[str, Any]], Awaitable[Done]]
Receipt = Callable[[Caller, dict[str, Any], Done], Awaitable[Kept]]


def asserted_agent(headers: dict[str, str]) -> str | None:
    """The agent's self-asserted name, audited beside the grant's own."""
    return headers.get("x-a2app-agent") or headers.get("x-lui-agent")


def authorise_write(state: RuntimeState, headers: dict[str, str], write: Write) -> Caller:
    if write.caller is not None:
        return write.caller
    try:
        return state.security.authorize(headers, write.scope, write=write.write)
    except ProtocolError as exc:
        if write.audit_unauthorised:
            audit(state, entry(None, write.target, "rejected", record_id=write.record_id,
                               code=exc.code))  # fmt: skip
        raise


async def _no_guard() -> dict[str, Any]:
    return {}


async def run_write(
    state: RuntimeState,
    headers: dict[str, str],
    write: Write,
    *,
    checks: Checks,
    act: Act,
    receipt: Receipt,
    guard: Guard = _no_guard,
) -> tuple[Done, str]:
    """One write, start to end; answers what was done and its receipt text."""
    seen.begin()
    caller = authorise_write(state, headers, write)
    checks(caller)
    agent = asserted_agent(headers)

    def rejected(exc: ProtocolError) -> None:
        if exc.code not in write.unaudited:
            audit(state, entry(caller, write.target, "rejected", record_id=write.record_id,
                               code=exc.code, asserted_agent=agent))  # fmt: skip

    guard_first = write.order is Order.GUARD_FIRST
    idem = Idempotency(state.store, state.mapping.app.id, write.idem_scope, write.idem_key)
    try:
        values = await guard() if guard_first else {}
        idem.reserve()
    except ProtocolError as exc:
        rejected(exc)
        raise
    try:
        if not guard_first:
            values = await guard()
        done = await act(caller, values)
    except BaseException as exc:
        idem.fail(exc, operation=write.operation)
        if isinstance(exc, ProtocolError):
            rejected(exc)
        raise
    try:
        kept = await receipt(caller, values, done)
    except BaseException:
        idem.complete(record_id=done.record_id, operation=write.operation)  # it landed
        raise
    # One commit: the key's end, the receipt, the audit entry, the data version.
    state.store.finish_write(
        WriteEnd(
            app_id=state.mapping.app.id, target=write.target, record_id=done.record_id,
            credential_id=caller.credential_id, agent_name=caller.agent_name,
            principal=caller.principal, asserted_agent=agent, receipt_target=kept.target,
            receipt_record_id=kept.record_id, receipt=kept.text,
            idempotency=idem.handed_over(), operation=write.operation, counted=done.changed,
        )
    )  # fmt: skip
    to_file(state, entry(caller, write.target, "ok", record_id=done.record_id,
                         asserted_agent=agent))  # fmt: skip
    if done.changed:
        if write.feed is not None and state.feed is not None and done.record_id is not None:
            entity, action = write.feed
            record = None if action == "delete" else done.result
            state.feed.written(entity, action, done.record_id, record)
        # the data moved: a declared trigger may match (or match anew) now
        state.triggers.after_write()
    return done, kept.text
