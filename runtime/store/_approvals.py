"""Approval keys for destructive operations (protocol §13): issued, decided, then used once.

Under `serve.approvals: host` (the protocol's rule) a key runs the call when
the agent hands it back. Under `owner` it runs only after the owner approved
it out of band (`a2map approvals`); the runtime then consumes it with
`consume_approved`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from ._base import StoreBase
from ._rows import Approval, ApprovalState, Decision
from ._tables import approvals

TEN_MINUTES = 600
# An approval given late still leaves the agent this long to use it.
USE_AFTER_APPROVAL_SECONDS = 600


def _approval(row: Mapping[Any, Any], now: datetime) -> Approval:
    state: ApprovalState
    if row["used_at"] is not None:
        state = "used"
    elif row["expires_at"] <= now:
        state = "expired"
    else:
        state = row["decision"] or "pending"
    return Approval(
        app_id=row["app_id"],
        key=row["key"],
        operation=row["operation"],
        args=row["args"],
        issued_at=row["issued_at"],
        expires_at=row["expires_at"],
        used_at=row["used_at"],
        decision=row["decision"],
        decided_at=row["decided_at"],
        state=state,
    )


class ApprovalsMixin(StoreBase):
    def issue_approval(
        self,
        app_id: str,
        key: str,
        operation: str,
        ttl_seconds: int = TEN_MINUTES,
        *,
        args: Mapping[str, Any] | None = None,
    ) -> None:
        """(Re)issue `key`: undecided, unused and valid for `ttl_seconds` from now."""
        now = self._now()
        values = self._fresh(operation, args, now, ttl_seconds)
        mine = (approvals.c.app_id == app_id, approvals.c.key == key)
        with self._write() as conn:
            self._drop_stale(conn, app_id, now)
            if conn.execute(update(approvals).where(*mine).values(values)).rowcount == 0:
                row = insert(approvals).values(app_id=app_id, key=key, **values)
                if not self._insert_if_absent(conn, row):
                    conn.execute(update(approvals).where(*mine).values(values))

    def request_approval(
        self,
        app_id: str,
        key: str,
        operation: str,
        args: Mapping[str, Any] | None,
        ttl_seconds: int,
    ) -> Approval:
        """Ask the owner about `key`: issue it unless it is still live, and return it.

        A live key (unused, unexpired) keeps its decision and its expiry, so
        asking again neither resets an approval nor lifts a denial, nor keeps a
        request open for ever.
        """
        now = self._now()
        values = self._fresh(operation, args, now, ttl_seconds)
        mine = (approvals.c.app_id == app_id, approvals.c.key == key)
        with self._write() as conn:
            self._drop_stale(conn, app_id, now)
            row = insert(approvals).values(app_id=app_id, key=key, **values)
            if not self._insert_if_absent(conn, row):
                # expired keys were dropped above: only a used one is issued anew
                conn.execute(
                    update(approvals).where(*mine, approvals.c.used_at.is_not(None)).values(values)
                )
            found = conn.execute(select(approvals).where(*mine)).one()
        return _approval(found._mapping, now)

    def approval(self, app_id: str, key: str) -> Approval | None:
        """The key as it is now, or None when it was never issued (or was cleaned away)."""
        now = self._now()
        query = select(approvals).where(approvals.c.app_id == app_id, approvals.c.key == key)
        with self._read() as conn:
            row = conn.execute(query).one_or_none()
        return _approval(row._mapping, now) if row is not None else None

    def list_approvals(self, app_id: str | None = None, key_prefix: str = "") -> list[Approval]:
        """Keys in the store, oldest first; only one app's, or those starting with a prefix."""
        now = self._now()
        query = select(approvals).order_by(
            approvals.c.issued_at, approvals.c.app_id, approvals.c.key
        )
        if app_id is not None:
            query = query.where(approvals.c.app_id == app_id)
        if key_prefix:
            # keys are lowercase hex, so the prefix needs no LIKE escaping
            query = query.where(approvals.c.key.startswith(key_prefix.lower(), autoescape=True))
        with self._read() as conn:
            return [_approval(row._mapping, now) for row in conn.execute(query)]

    def decide_approval(self, app_id: str, key: str, decision: Decision) -> Approval | None:
        """The owner's decision on a live key; None when the key is not live.

        The owner may change their mind while the key is unused. An approval
        leaves at least USE_AFTER_APPROVAL_SECONDS to use it.
        """
        now = self._now()
        mine = (approvals.c.app_id == app_id, approvals.c.key == key)
        live = (approvals.c.used_at.is_(None), approvals.c.expires_at > now)
        with self._write() as conn:
            query = select(approvals).where(*mine, *live).with_for_update()
            row = conn.execute(query).one_or_none()
            if row is None:
                return None
            values: dict[str, Any] = {"decision": decision, "decided_at": now}
            floor = now + timedelta(seconds=USE_AFTER_APPROVAL_SECONDS)
            if decision == "approved" and row.expires_at < floor:
                values["expires_at"] = floor
            conn.execute(update(approvals).where(*mine, *live).values(values))
            found = conn.execute(select(approvals).where(*mine)).one()
        return _approval(found._mapping, now)

    def consume_approval(self, app_id: str, key: str) -> bool:
        """Use an issued, unexpired, unused key; True for exactly one caller."""
        return self._consume(app_id, key, approved=False)

    def consume_approved(self, app_id: str, key: str) -> bool:
        """Use a key the owner approved, unexpired and unused; True for exactly one caller."""
        return self._consume(app_id, key, approved=True)

    def _consume(self, app_id: str, key: str, *, approved: bool) -> bool:
        now = self._now()
        conditions = [
            approvals.c.app_id == app_id,
            approvals.c.key == key,
            approvals.c.used_at.is_(None),
            approvals.c.expires_at > now,
        ]
        if approved:
            conditions.append(approvals.c.decision == "approved")
        with self._write() as conn:
            used = conn.execute(update(approvals).where(*conditions).values(used_at=now))
        return used.rowcount == 1

    @staticmethod
    def _fresh(
        operation: str, args: Mapping[str, Any] | None, now: datetime, ttl_seconds: int
    ) -> dict[str, Any]:
        return {
            "operation": operation,
            "args": dict(args) if args is not None else None,
            "issued_at": now,
            "expires_at": now + timedelta(seconds=ttl_seconds),
            "used_at": None,
            "decision": None,
            "decided_at": None,
        }

    @staticmethod
    def _drop_stale(conn: Connection, app_id: str, now: datetime) -> None:
        # expired keys of this app go now: nothing runs on them any more
        conn.execute(
            delete(approvals).where(approvals.c.app_id == app_id, approvals.c.expires_at <= now)
        )
