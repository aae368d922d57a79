"""The store's tables, as the queries see them.

The migrations under `migrations/versions/` create these; a test compares the
migrated database with this metadata so the two cannot drift apart.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    Dialect,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy.types import TypeDecorator

NAMING = {
    "pk": "pk_%(table_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
}

metadata = MetaData(naming_convention=NAMING)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC in, timezone-aware UTC out, on every backend.

    SQLite has no time zone type; it stores the naive UTC text, which still
    sorts and compares correctly because every value is UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("the store only accepts timezone-aware datetimes")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# SQLite only autoincrements a column declared exactly INTEGER PRIMARY KEY
SERIAL = BigInteger().with_variant(Integer(), "sqlite")

grants = Table(
    "a2app_grants",
    metadata,
    Column("id", Text, primary_key=True),
    Column("app_id", Text, nullable=True),
    Column("agent_name", Text, nullable=False),
    Column("principal", Text, nullable=False, server_default="owner"),
    Column("scopes", JSON, nullable=False),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("revoked_at", UTCDateTime, nullable=True),
)

data_versions = Table(
    "a2app_data_versions",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("epoch", Text, nullable=False),
    Column("counter", BigInteger, nullable=False),
)

idempotency_keys = Table(
    "a2app_idempotency_keys",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("scope", Text, primary_key=True),
    Column("key", Text, primary_key=True),
    Column("record_id", Text, nullable=True),
    Column("operation", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    # NULL while the first request still runs; set once it succeeded, or once it
    # failed after the upstream may have applied it (then `outcome` says how)
    Column("completed_at", UTCDateTime, nullable=True),
    Column("outcome", Text, nullable=True),
    Index(None, "app_id", "expires_at"),
)

approvals = Table(
    "a2app_approvals",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("operation", Text, nullable=False),
    Column("issued_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("used_at", UTCDateTime, nullable=True),
    Column("args", JSON(none_as_null=True), nullable=True),
    Column("decision", Text, nullable=True),
    Column("decided_at", UTCDateTime, nullable=True),
)

receipts = Table(
    "a2app_receipts",
    metadata,
    Column("id", SERIAL, primary_key=True, autoincrement=True),
    Column("app_id", Text, nullable=False),
    Column("at", UTCDateTime, nullable=False),
    Column("credential_id", Text, nullable=True),
    Column("target", Text, nullable=False),
    Column("record_id", Text, nullable=True),
    Column("text", Text, nullable=False),
    Index(None, "app_id", "id"),
)

audit = Table(
    "a2app_audit",
    metadata,
    Column("id", SERIAL, primary_key=True, autoincrement=True),
    Column("app_id", Text, nullable=False),
    Column("at", UTCDateTime, nullable=False),
    Column("credential_id", Text, nullable=True),
    Column("agent_name", Text, nullable=True),
    Column("asserted_agent", Text, nullable=True),
    Column("principal", Text, nullable=True),
    Column("target", Text, nullable=False),
    Column("record_id", Text, nullable=True),
    Column("outcome", Text, nullable=False),
    Column("code", Text, nullable=True),
    Index(None, "app_id", "id"),
)

jobs = Table(
    "a2app_jobs",
    metadata,
    Column("id", Text, primary_key=True),
    Column("app_id", Text, nullable=False),
    Column("operation", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("params", JSON, nullable=False),
    Column("result", JSON(none_as_null=True), nullable=True),
    Column("reason", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("owner", Text, nullable=False),
    Index(None, "app_id"),
    Index(None, "owner", "status"),
)

# The app→agent plane (protocol §14). `seq` orders events and tasks; a dedup key
# is unique per app, so one occurrence raises one event and enqueues one task even
# when several processes evaluate the same trigger at once.
events = Table(
    "a2app_events",
    metadata,
    Column("seq", SERIAL, primary_key=True, autoincrement=True),
    Column("id", Text, nullable=False, unique=True),
    Column("app_id", Text, nullable=False),
    Column("type", Text, nullable=False),
    Column("payload", JSON(none_as_null=True), nullable=True),
    Column("dedup_key", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Index(None, "app_id", "seq"),
    Index(None, "app_id", "dedup_key", unique=True),
)

tasks = Table(
    "a2app_tasks",
    metadata,
    Column("seq", SERIAL, primary_key=True, autoincrement=True),
    Column("id", Text, nullable=False, unique=True),
    Column("app_id", Text, nullable=False),
    Column("event_id", Text, nullable=True),
    Column("status", Text, nullable=False),
    Column("capability", Text, nullable=False),
    Column("payload", JSON(none_as_null=True), nullable=True),
    Column("dedup_key", Text, nullable=True),
    Column("claim_credential", Text, nullable=True),
    Column("claim_principal", Text, nullable=True),
    Column("claimed_at", UTCDateTime, nullable=True),
    Column("step", Text, nullable=True),
    Column("percent", Float, nullable=True),
    Column("ask", JSON(none_as_null=True), nullable=True),
    Column("result", JSON(none_as_null=True), nullable=True),
    Column("reason", Text, nullable=True),
    # how many times the task was handed out: 1 on enqueue, +1 per redelivery
    Column("deliveries", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Index(None, "app_id", "status"),
    Index(None, "app_id", "dedup_key", unique=True),
)

# What the app's own UI says it shows (§8): one row per app, written by the owner.
contexts = Table(
    "a2app_contexts",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("view", Text, nullable=True),
    Column("selected", JSON, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)

# The change feed. `a2app_feed_records` is what the last poll saw of each record
# (its hash), `a2app_feed_changes` what changed since, in order; `a2app_feed_state`
# holds the lease that lets one process poll an entity at a time, and whether the
# baseline was taken.
feed_records = Table(
    "a2app_feed_records",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("entity", Text, primary_key=True),
    Column("record_id", Text, primary_key=True),
    Column("hash", String(64), nullable=False),
)

feed_changes = Table(
    "a2app_feed_changes",
    metadata,
    Column("seq", SERIAL, primary_key=True, autoincrement=True),
    Column("app_id", Text, nullable=False),
    Column("entity", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("record_id", Text, nullable=False),
    Column("record", JSON(none_as_null=True), nullable=True),
    Column("at", UTCDateTime, nullable=False),
    Index(None, "app_id", "seq"),
)

feed_state = Table(
    "a2app_feed_state",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("entity", Text, primary_key=True),
    Column("holder", Text, nullable=True),
    Column("lease_until", UTCDateTime, nullable=True),
    Column("baseline_at", UTCDateTime, nullable=True),
    Column("note", Text, nullable=True),
    Column("updated_at", UTCDateTime, nullable=False),
)

# Realtime subscriptions, shared by every process serving the app: a POST taken by any
# process writes the set here, and the process holding the client's stream picks it up.
# `a2app_realtime_holders` is one row per process fan-out: its heartbeat (`seen_at`) keeps
# its clients alive, and its `rev` counts the sets written for its clients, so it reads
# only the sets newer than the last it applied (`a2app_realtime_clients.rev`).
realtime_holders = Table(
    "a2app_realtime_holders",
    metadata,
    Column("id", Text, primary_key=True),
    Column("app_id", Text, nullable=False),
    Column("rev", BigInteger, nullable=False),
    Column("seen_at", UTCDateTime, nullable=False),
    Index(None, "seen_at"),
)

realtime_clients = Table(
    "a2app_realtime_clients",
    metadata,
    Column("app_id", Text, primary_key=True),
    Column("client_id", Text, primary_key=True),
    Column("holder", Text, nullable=False),
    Column("rev", BigInteger, nullable=False),
    Column("topics", JSON, nullable=False),
    # who subscribed, as authorisation resolved it (a grant id, `ui`, `anonymous`):
    # never the token, which the store only ever keeps hashed in a2app_grants
    Column("caller_kind", Text, nullable=True),
    Column("credential_id", Text, nullable=True),
    Column("subscribed_at", UTCDateTime, nullable=True),
    Index(None, "holder", "rev"),
)
