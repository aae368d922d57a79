"""Approval keys for destructive operations (protocol §13): issued, then used once."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, update

from ._base import StoreBase
from ._tables import approvals

TEN_MINUTES = 600


class ApprovalsMixin(StoreBase):
    def issue_approval(
        self, app_id: str, key: str, operation: str, ttl_seconds: int = TEN_MINUTES
    ) -> None:
        """(Re)issue `key`: unused and valid for `ttl_seconds` from now."""
        now = self._now()
        values = {
            "operation": operation,
            "issued_at": now,
            "expires_at": now + timedelta(seconds=ttl_seconds),
            "used_at": None,
        }
        mine = (approvals.c.app_id == app_id, approvals.c.key == key)
        with self._write() as conn:
            # spent and stale keys of this app go now: nothing else reads them
            conn.execute(
                delete(approvals).where(approvals.c.app_id == app_id, approvals.c.expires_at <= now)
            )
            if conn.execute(update(approvals).where(*mine).values(values)).rowcount == 0:
                row = insert(approvals).values(app_id=app_id, key=key, **values)
                if not self._insert_if_absent(conn, row):
                    conn.execute(update(approvals).where(*mine).values(values))

    def consume_approval(self, app_id: str, key: str) -> bool:
        """Use an issued, unexpired, unused key; True for exactly one caller."""
        now = self._now()
        with self._write() as conn:
            used = conn.execute(
                update(approvals)
                .where(
                    approvals.c.app_id == app_id,
                    approvals.c.key == key,
                    approvals.c.used_at.is_(None),
                    approvals.c.expires_at > now,
                )
                .values(used_at=now)
            )
        return used.rowcount == 1
