"""What one successful write leaves behind, committed in one transaction.

A write's idempotency key is reserved before the upstream call (the race guarantee
rests on it); everything after the call (the key's end, the receipt, the audit
entry, the `dataVersion` count) is one commit, and no transaction is held across
the upstream call.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._idempotency import IdempotencyMixin
from ._journal import JournalMixin
from ._versions import VersionsMixin


@dataclass(frozen=True, slots=True)
class WriteEnd:
    app_id: str
    target: str  # the audit's: `data:<entity>` or `op:<name>`
    record_id: str | None
    credential_id: str | None
    agent_name: str | None
    principal: str | None
    asserted_agent: str | None
    receipt_target: str
    receipt_record_id: str | None
    receipt: str
    idempotency: tuple[str, str] | None = None  # (scope, key) held by the request
    operation: str | None = None  # kept with the idempotency key
    counted: bool = True  # the data changed: `dataVersion` counts it


class FinishMixin(IdempotencyMixin, JournalMixin, VersionsMixin):
    def finish_write(self, end: WriteEnd) -> str | None:
        """Commit `end`; the new `dataVersion` when it counted one."""
        at = self._now()
        with self._write() as conn:
            if end.idempotency is not None:
                scope, key = end.idempotency
                self._complete_key(conn, end.app_id, scope, key, end.record_id, end.operation, None)
            self._journal_write(conn, {
                "app_id": end.app_id, "at": at, "credential_id": end.credential_id,
                "target": end.receipt_target, "record_id": end.receipt_record_id,
                "text": end.receipt,
            }, {
                "app_id": end.app_id, "at": at, "credential_id": end.credential_id,
                "agent_name": end.agent_name, "asserted_agent": end.asserted_agent,
                "principal": end.principal, "target": end.target, "record_id": end.record_id,
                "outcome": "ok", "code": None,
            })  # fmt: skip
            return self._bump(conn, end.app_id) if end.counted else None
