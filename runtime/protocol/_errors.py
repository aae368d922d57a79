"""One registry of error codes: HTTP status, whether a retry can help, default message.

    ProtocolError            every refusal the runtime answers with
      └─ raised anywhere; rendered once, by the app's single handler, as
         {a2app: true, ok: false, code, message, ...extras}

Upstream failures are translated into these codes in `runtime.upstream` and
nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Retry = Literal["no", "yes", "later", "after", "maybe"]

# Every code the runtime answers with, so that a misspelt code is a type error (the
# registry below has exactly these keys; tests/runtime/protocol/test_errors.py holds it).
ErrorCode = Literal[
    "forbidden_host",
    "forbidden_origin",
    "agent_token_required",
    "insufficient_scope",
    "rate_limited",
    "unknown_entity",
    "unknown_module",
    "unknown_relation",
    "record_not_found",
    "unknown_operation",
    "not_found",
    "usage",
    "invalid_filter",
    "unknown_field",
    "read_only_field",
    "missing_required",
    "invalid_date",
    "invalid_daykey",
    "invalid_string",
    "invalid_number",
    "invalid_boolean",
    "invalid_enum",
    "not_stored",
    "duplicate_request",
    "record_referenced",
    "approval_required",
    "not_implemented",
    "operation_failed",
    "payload_too_large",
    "adapter_error",
    "task_not_found",
    "task_not_claimable",
    "task_canceled",
    "principal_mismatch",
    "job_not_found",
    "writes_not_verified",
    "invalid_ref",
    "invalid_json",
    "invalid_query",
    "approval_pending",
    "approval_denied",
    "invalid_signature",
    "confirmation_unavailable",
    "realtime_auth_mismatch",
    "upstream_unavailable",
    "upstream_timeout",
    "upstream_error",
    "upstream_rate_limited",
    "upstream_auth_failed",
    "upstream_rejected",
]


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    status: int
    retry: Retry
    message: str


REGISTRY: dict[ErrorCode, ErrorSpec] = {
    # protocol codes (a2app-protocol.md §15)
    "forbidden_host": ErrorSpec(403, "no", "This Host is not allowed."),
    "forbidden_origin": ErrorSpec(403, "no", "Requests from this browser origin are not allowed."),
    "agent_token_required": ErrorSpec(401, "no", "An agent token is required."),
    "insufficient_scope": ErrorSpec(403, "no", "The credential lacks the required scope."),
    "rate_limited": ErrorSpec(429, "after", "Too many requests; retry after the window."),
    "unknown_entity": ErrorSpec(404, "no", "No such entity."),
    "unknown_module": ErrorSpec(404, "no", "No such module."),
    "unknown_relation": ErrorSpec(404, "no", "No such relation."),
    "record_not_found": ErrorSpec(404, "no", "No such record."),
    "unknown_operation": ErrorSpec(404, "no", "No such operation."),
    "not_found": ErrorSpec(
        404, "no", "No such route. See GET /api/_a2app/describe and POST /api/ops/<name>."
    ),
    "usage": ErrorSpec(400, "no", "The request is not a valid use of this route."),
    "invalid_filter": ErrorSpec(400, "no", "The filter cannot be honoured."),
    "unknown_field": ErrorSpec(400, "no", "Unknown field."),
    "read_only_field": ErrorSpec(400, "no", "Read-only field."),
    "missing_required": ErrorSpec(400, "no", "Missing required field."),
    "invalid_date": ErrorSpec(400, "no", "Invalid date."),
    "invalid_daykey": ErrorSpec(400, "no", "Invalid day key."),
    "invalid_string": ErrorSpec(400, "no", "Invalid text."),
    "invalid_number": ErrorSpec(400, "no", "Invalid number."),
    "invalid_boolean": ErrorSpec(400, "no", "Invalid boolean."),
    "invalid_enum": ErrorSpec(400, "no", "Invalid enum value."),
    "not_stored": ErrorSpec(422, "no", "The upstream did not store every requested value."),
    "duplicate_request": ErrorSpec(409, "no", "This idempotency key was already used."),
    "record_referenced": ErrorSpec(409, "no", "Other records still reference this record."),
    "approval_required": ErrorSpec(428, "no", "A human must approve this operation."),
    "not_implemented": ErrorSpec(501, "no", "Not implemented."),
    "operation_failed": ErrorSpec(500, "maybe", "The operation failed."),
    "payload_too_large": ErrorSpec(413, "no", "The request body is too large."),
    "adapter_error": ErrorSpec(500, "maybe", "Unexpected error in the runtime."),
    "task_not_found": ErrorSpec(404, "no", "No such task."),
    "task_not_claimable": ErrorSpec(409, "no", "The task is not in a state that allows this."),
    "task_canceled": ErrorSpec(409, "no", "The task was canceled."),
    "principal_mismatch": ErrorSpec(403, "no", "The claim names another agent than the caller."),
    # extensions: jobs of the older protocol text, refs checked before a write, bodies and
    # queries refused whole, approvals decided by the owner, signed webhooks,
    # realtime (docs/protocol.md)
    "job_not_found": ErrorSpec(404, "no", "No such job."),
    "writes_not_verified": ErrorSpec(
        403, "no", "This app's mapping is verified for reads only; writes are refused."
    ),
    "invalid_ref": ErrorSpec(400, "no", "A reference names no existing record."),
    "invalid_json": ErrorSpec(400, "no", "The request body is not one JSON object."),
    "invalid_query": ErrorSpec(400, "no", "A query parameter is not one this route takes."),
    "approval_pending": ErrorSpec(
        428, "later", "The owner has not approved this call yet; ask them, then call again."
    ),
    "approval_denied": ErrorSpec(403, "no", "The owner denied this call."),
    "invalid_signature": ErrorSpec(
        401, "no", "The webhook delivery is unsigned, badly signed or outside its time window."
    ),
    "confirmation_unavailable": ErrorSpec(
        403, "no", "The MCP client cannot ask its user to confirm a destructive operation."
    ),
    # PocketBase's own message for a realtime subscription replaced under another credential
    "realtime_auth_mismatch": ErrorSpec(
        403, "no", "The current and the previous request authorization don't match."
    ),
    # upstream failures (ARCHITECTURE §6), translated in runtime.upstream only
    "upstream_unavailable": ErrorSpec(502, "later", "The upstream app cannot be reached."),
    "upstream_timeout": ErrorSpec(504, "yes", "The upstream app did not answer in time."),
    "upstream_error": ErrorSpec(502, "maybe", "The upstream app failed or answered unexpectedly."),
    "upstream_rate_limited": ErrorSpec(429, "after", "The upstream app is rate limiting."),
    "upstream_auth_failed": ErrorSpec(
        502, "no", "The upstream app refused the runtime's credentials; the owner must fix them."
    ),
    "upstream_rejected": ErrorSpec(400, "no", "The upstream app refused the values."),
}


# What a caller decides on, named once rather than spelt at each decision.
UPSTREAM_CODES: frozenset[ErrorCode] = frozenset(c for c in REGISTRY if c.startswith("upstream_"))
# The upstream could not be asked (down, or silent): no answer says anything of the mapping.
UNREACHABLE_CODES: frozenset[ErrorCode] = frozenset({"upstream_unavailable", "upstream_timeout"})


class ProtocolError(Exception):
    """A refusal with a stable code; extras become top-level envelope keys."""

    code: ErrorCode

    def __init__(
        self,
        code: ErrorCode,
        message: str | None = None,
        /,
        *,
        status: int | None = None,
        **extra: Any,
    ) -> None:
        if code not in REGISTRY:
            raise KeyError(f"unregistered error code {code!r}")
        self.code = code
        self.spec = REGISTRY[code]
        self._status = status
        self.message = message or self.spec.message
        self.extra = extra
        super().__init__(f"{code}: {self.message}")

    def adding(self, note: str = "", **extra: Any) -> ProtocolError:
        """The same refusal with more said: a sentence appended, extras merged."""
        message = f"{self.message.rstrip()} {note.strip()}" if note else self.message
        added = ProtocolError(self.code, message, status=self._status, **{**self.extra, **extra})
        added.__cause__ = self.__cause__
        return added

    def is_(self, *codes: ErrorCode) -> bool:
        """Whether this is one of `codes` (typed, so a misspelt code does not pass)."""
        return self.code in codes

    @property
    def from_upstream(self) -> bool:
        """A foreign failure, translated at the upstream boundary."""
        return self.code in UPSTREAM_CODES

    @property
    def unreachable(self) -> bool:
        """The upstream could not be reached or did not answer in time."""
        return self.code in UNREACHABLE_CODES

    @property
    def status(self) -> int:
        """The registry's status; `usage` alone varies (400, 404, 405) as the protocol says."""
        return self._status or self.spec.status

    def body(self) -> dict[str, Any]:
        return {
            "a2app": True,
            "ok": False,
            "code": self.code,
            "message": self.message,
            **self.extra,
        }
