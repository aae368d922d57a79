"""Append-only records of what agents did: the audit log (§20) and receipts (§21)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, bindparam, insert, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.sql.dml import Insert

from ._base import StoreBase
from ._rows import AuditEntry, Receipt
from ._tables import audit, receipts

# "A2RC": the advisory lock class that orders receipt inserts per app
_PG_RECEIPT_LOCK = 0x41325243


class JournalMixin(StoreBase):
    def add_audit(
        self,
        *,
        app_id: str,
        target: str,
        outcome: str,
        credential_id: str | None = None,
        agent_name: str | None = None,
        asserted_agent: str | None = None,
        principal: str | None = None,
        record_id: str | None = None,
        code: str | None = None,
    ) -> int:
        """Append one audit entry; `credential_id` is a grant id, never a token."""
        row = {
            "app_id": app_id,
            "at": self._now(),
            "credential_id": credential_id,
            "agent_name": agent_name,
            "asserted_agent": asserted_agent,
            "principal": principal,
            "target": target,
            "record_id": record_id,
            "outcome": outcome,
            "code": code,
        }
        with self._write() as conn:
            return self._append_audit(conn, row)

    @staticmethod
    def _append_audit(conn: Connection, row: dict[str, Any]) -> int:
        return _new_id(conn.execute(_INSERT_AUDIT, row).inserted_primary_key)

    def _journal_write(
        self, conn: Connection, receipt: dict[str, Any], entry: dict[str, Any]
    ) -> None:
        """A successful write's receipt and audit entry, on the driver's cursor: every
        write runs this, and needs neither id back."""
        self._receipts_in_order(conn, receipt["app_id"])
        self._direct(_APPEND_RECEIPT).run(conn, receipt)
        self._direct(_APPEND_AUDIT).run(conn, entry)

    def audit_entries(self, app_id: str, cursor: int = 0, limit: int = 100) -> list[AuditEntry]:
        query = (
            select(audit)
            .where(audit.c.app_id == app_id, audit.c.id > cursor)
            .order_by(audit.c.id)
            .limit(limit)
        )
        with self._read() as conn:
            return [AuditEntry(**row._mapping) for row in conn.execute(query)]

    def add_receipt(
        self,
        *,
        app_id: str,
        target: str,
        text: str,
        credential_id: str | None = None,
        record_id: str | None = None,
    ) -> int:
        """Append a receipt and return its id, the cursor `receipts_since` pages by."""
        row = {
            "app_id": app_id,
            "at": self._now(),
            "credential_id": credential_id,
            "target": target,
            "record_id": record_id,
            "text": text,
        }
        with self._write() as conn:
            return self._append_receipt(conn, row)

    def _append_receipt(self, conn: Connection, row: dict[str, Any]) -> int:
        self._receipts_in_order(conn, row["app_id"])
        return _new_id(conn.execute(_INSERT_RECEIPT, row).inserted_primary_key)

    def _receipts_in_order(self, conn: Connection, app_id: str) -> None:
        if conn.dialect.name == "postgresql":
            # Sequence values are handed out before commit, so without this a reader
            # could page past an id that commits a moment later.
            self._direct(_receipt_lock).run(conn, {"cls": _PG_RECEIPT_LOCK, "app": app_id})

    def receipts_since(self, app_id: str, cursor: int = 0, limit: int = 100) -> list[Receipt]:
        """Receipts with an id above `cursor`, oldest first."""
        query = (
            select(receipts)
            .where(receipts.c.app_id == app_id, receipts.c.id > cursor)
            .order_by(receipts.c.id)
            .limit(limit)
        )
        with self._read() as conn:
            return [Receipt(**row._mapping) for row in conn.execute(query)]


# Built once: every write appends one of each.
_INSERT_AUDIT = insert(audit)
_INSERT_RECEIPT = insert(receipts)
_receipt_lock = text("SELECT pg_advisory_xact_lock(:cls, hashtext(:app))")


def _appending(table: Table) -> Insert:
    """An insert of every column but the generated id, each bound by its name."""
    return insert(table).values(
        {c.name: bindparam(c.name, type_=c.type) for c in table.c if c.name != "id"}
    )


_APPEND_RECEIPT = _appending(receipts)
_APPEND_AUDIT = _appending(audit)


def _new_id(key: Any) -> int:
    return int(key[0])
