"""Idempotency keys (protocol §12), race-safe across processes through the primary key."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import ColumnElement, and_, delete, insert, select, update
from sqlalchemy.engine import Connection

from ._base import StoreBase
from ._rows import IdemState
from ._tables import idempotency_keys as keys

DAY = 86400
# How long an unfinished first request may hold a key: long enough for an
# upstream write and its read-back, short enough that a crashed process does
# not block the key for the whole day.
LEASE_SECONDS = 600


class IdempotencyMixin(StoreBase):
    def reserve_idempotency_key(
        self,
        app_id: str,
        scope: str,
        key: str,
        ttl_seconds: int = DAY,
        *,
        lease_seconds: int = LEASE_SECONDS,
    ) -> IdemState:
        """Take the key (`fresh`), or learn it is `pending` elsewhere or already `done`.

        An unfinished reservation lasts at most `lease_seconds`; the key's
        `ttl_seconds` lifetime starts when `complete_idempotency_key` records success.
        """
        now = self._now()
        row = {
            "app_id": app_id,
            "scope": scope,
            "key": key,
            "created_at": now,
            "expires_at": now + timedelta(seconds=min(ttl_seconds, lease_seconds)),
        }
        with self._write() as conn:
            conn.execute(delete(keys).where(keys.c.app_id == app_id, keys.c.expires_at <= now))
            if self._insert_if_absent(conn, insert(keys).values(row)):
                return IdemState("fresh")
            held = conn.execute(
                select(
                    keys.c.record_id, keys.c.operation, keys.c.completed_at, keys.c.outcome
                ).where(self._pk(app_id, scope, key))
            ).first()
        if held is None:
            # the holder released it between our insert and our read: the
            # caller may simply try again, but a replay must never run twice
            return IdemState("pending")
        if held.completed_at is None:
            return IdemState("pending")
        return IdemState(
            "done", record_id=held.record_id, operation=held.operation, outcome=held.outcome
        )

    def complete_idempotency_key(
        self,
        app_id: str,
        scope: str,
        key: str,
        record_id: str | None = None,
        operation: str | None = None,
        *,
        outcome: str | None = None,
        ttl_seconds: int = DAY,
    ) -> None:
        """Record the first request's end; replays get a 409 for `ttl_seconds` from now.

        `outcome` is None for a success; `unknown` or `partial` keep the key after a
        failure that may have written, so a retry cannot write a second time.
        """
        with self._write() as conn:
            self._complete_key(conn, app_id, scope, key, record_id, operation, outcome, ttl_seconds)

    def _complete_key(
        self, conn: Connection, app_id: str, scope: str, key: str, record_id: str | None,
        operation: str | None, outcome: str | None, ttl_seconds: int = DAY,
    ) -> None:  # fmt: skip
        now = self._now()
        values = {
            "record_id": record_id,
            "operation": operation,
            "outcome": outcome,
            "completed_at": now,
            "expires_at": now + timedelta(seconds=ttl_seconds),
        }
        done = conn.execute(update(keys).where(self._pk(app_id, scope, key)).values(values))
        if done.rowcount == 0:
            # the lease ran out and was purged while the request ran
            row = {"app_id": app_id, "scope": scope, "key": key, "created_at": now}
            self._insert_if_absent(conn, insert(keys).values(**row, **values))

    def release_idempotency_key(self, app_id: str, scope: str, key: str) -> None:
        """Free a key whose first request failed, so a retry runs anew."""
        with self._write() as conn:
            conn.execute(
                delete(keys).where(self._pk(app_id, scope, key), keys.c.completed_at.is_(None))
            )

    @staticmethod
    def _pk(app_id: str, scope: str, key: str) -> ColumnElement[bool]:
        return and_(keys.c.app_id == app_id, keys.c.scope == scope, keys.c.key == key)
