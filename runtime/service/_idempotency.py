"""`Idempotency-Key`: a create, an update or an operation made safe to retry (protocol §12)."""

from __future__ import annotations

from typing import Any

from runtime.protocol import ProtocolError
from runtime.store import Store

IDEM_TTL_SECONDS = 24 * 3600
REFERENCE_EXAMPLES = 10


class Idempotency:
    """One `Idempotency-Key` for the life of a request: reserved, then kept or freed.

    A key is freed only when nothing can have been written: the request failed
    before the upstream write was sent, or the upstream refused it. After any
    failure the write may have survived, the key is kept with what is known (the
    record id, or that the outcome is unknown), so a retry answers 409 instead of
    writing a second time.
    """

    def __init__(self, store: Store, app_id: str, scope: str, key: str | None) -> None:
        self.store, self.app_id, self.scope, self.key = store, app_id, scope, key
        self.held = False

    def reserve(self) -> None:
        if not self.key:
            return
        found = self.store.reserve_idempotency_key(
            self.app_id, self.scope, self.key, IDEM_TTL_SECONDS
        )
        if found.status == "fresh":
            self.held = True
            return
        extra: dict[str, Any] = {}
        if found.record_id is not None:
            extra["id"] = found.record_id
        if found.operation is not None:
            extra["operation"] = found.operation
        if found.status == "pending":
            said = " is still in progress"
        elif found.outcome == "unknown":
            extra["outcomeUnknown"] = True
            said = (
                " was used by a request that may or may not have been carried out; "
                "read the upstream's state before retrying with a new key"
            )
        elif found.outcome == "partial":
            said = " was used by a write that landed, but not as asked"
        else:
            said = " was already used"
        raise ProtocolError("duplicate_request", f"Idempotency key {self.key!r}{said}.", **extra)

    def handed_over(self) -> tuple[str, str] | None:
        """The held key, handed to the commit that ends the write (`Store.finish_write`)."""
        if not (self.held and self.key):
            return None
        self.held = False
        return self.scope, self.key

    def complete(self, *, record_id: str | None = None, operation: str | None = None) -> None:
        self._finish(record_id=record_id, operation=operation, outcome=None)

    def fail(self, exc: BaseException, *, operation: str | None = None) -> None:
        """After a failed first call: keep the key if the write may have landed, else free it."""
        if not (self.held and self.key):
            return
        extra = exc.extra if isinstance(exc, ProtocolError) else {}
        record_id = extra.get("id")
        if isinstance(exc, ProtocolError) and exc.is_("not_stored"):
            self._finish(record_id=record_id, operation=operation, outcome="partial")
        elif extra.get("outcomeUnknown") or not isinstance(exc, Exception):
            # Cancelled mid-call (the client went away) counts as unknown too.
            self._finish(record_id=record_id, operation=operation, outcome="unknown")
        else:
            self.store.release_idempotency_key(self.app_id, self.scope, self.key)
            self.held = False

    def _finish(self, *, record_id: str | None, operation: str | None, outcome: str | None) -> None:
        if self.held and self.key:
            self.store.complete_idempotency_key(
                self.app_id,
                self.scope,
                self.key,
                record_id=record_id,
                operation=operation,
                outcome=outcome,
            )
            self.held = False
