"""The rows the store hands back: frozen, typed, and free of secrets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Grant:
    """An agent's credential. The token itself is never kept, not even its hash here."""

    id: str
    app_id: str | None  # None: every app served from this store
    agent_name: str
    principal: str
    scopes: tuple[str, ...]
    created_at: datetime
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True, slots=True)
class IdemState:
    """The outcome of reserving an idempotency key (protocol §12).

    `fresh`: the caller now holds the key and must complete or release it.
    `pending`: another request holds it and has not finished.
    `done`: a request already used it; replay is a 409. `outcome` is None when that
    request succeeded, `unknown` when it was sent and may have been carried out,
    `partial` when it landed but not as asked.
    """

    status: Literal["fresh", "pending", "done"]
    record_id: str | None = None
    operation: str | None = None
    outcome: str | None = None


@dataclass(frozen=True, slots=True)
class Receipt:
    id: int
    app_id: str
    at: datetime
    credential_id: str | None
    target: str
    record_id: str | None
    text: str


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    app_id: str
    at: datetime
    credential_id: str | None
    agent_name: str | None
    asserted_agent: str | None
    principal: str | None
    target: str
    record_id: str | None
    outcome: str
    code: str | None


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    app_id: str
    operation: str
    status: str
    params: Any
    result: Any
    reason: str | None
    created_at: datetime
    updated_at: datetime
    owner: str  # the runtime process that runs it


ApprovalState = Literal["pending", "approved", "denied", "used", "expired"]
Decision = Literal["approved", "denied"]


@dataclass(frozen=True, slots=True)
class Approval:
    """An approval key for one destructive call, and what the owner decided about it.

    `state` is read off the store's clock when the row is read: `used` and
    `expired` keys run nothing, whatever was decided.
    """

    app_id: str
    key: str
    operation: str
    args: Any  # the call's arguments; None for keys issued before arguments were kept
    issued_at: datetime
    expires_at: datetime
    used_at: datetime | None
    decision: Decision | None
    decided_at: datetime | None
    state: ApprovalState


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened on the app's side (protocol §14.1); `seq` is its cursor."""

    seq: int
    id: str
    app_id: str
    type: str
    payload: Any
    dedup_key: str | None
    created_at: datetime


TaskStatus = Literal["submitted", "working", "input-required", "completed", "failed", "canceled"]


@dataclass(frozen=True, slots=True)
class Task:
    """A request from the app to an agent (protocol §14.2), as the queue holds it."""

    seq: int
    id: str
    app_id: str
    event_id: str | None
    status: TaskStatus
    capability: str
    payload: Any
    dedup_key: str | None
    claim_credential: str | None
    claim_principal: str | None
    claimed_at: datetime | None
    step: str | None
    percent: float | None
    ask: Any
    result: Any
    reason: str | None
    deliveries: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Context:
    """What the app's UI says it shows: a view name and selected record ids (§8)."""

    view: str | None
    selected: tuple[tuple[str, str], ...]  # (entity, id)


FeedAction = Literal["create", "update", "delete"]


@dataclass(frozen=True, slots=True)
class FeedChange:
    """One change the feed saw in an entity; `seq` orders the changes of every entity."""

    seq: int
    app_id: str
    entity: str
    action: FeedAction
    record_id: str
    record: Any  # the record as served; None for a delete
    at: datetime


@dataclass(frozen=True, slots=True)
class FeedState:
    """Who polls an entity (until when), whether its baseline was taken, and the last word
    of its poller (a walk stopped by the budget says so here)."""

    app_id: str
    entity: str
    holder: str | None
    lease_until: datetime | None
    baseline_at: datetime | None
    note: str | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class RealtimeSet:
    """A realtime client's subscription as a POST wrote it: the topics exactly as sent, and
    who subscribed (`caller_kind` `grant` with the grant's id, `ui` or `anonymous`)."""

    client_id: str
    rev: int
    topics: tuple[str, ...]
    caller_kind: str | None
    credential_id: str | None
