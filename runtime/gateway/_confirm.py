"""A destructive operation confirmed by the client's user, never by the model.

The runtime answers a destructive operation without an approval key with 428
`approval_required` (protocol §13). Under `serve.approvals: host` the key alone
runs the call, so the gateway presents it only after the user said yes through
MCP elicitation: a mid-call `elicitation/create` on the handshake revisions, an
`input_required` result on 2026-07-28 and later. The model's arguments never
carry a key. A client that cannot ask its user is refused.

Under `serve.approvals: owner` the key alone runs nothing: the owner approves out
of band, so the gateway presents the key itself and the model reads
`approval_pending` until the owner has approved.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import is_version_at_least

from runtime.protocol import ProtocolError

from ._dispatch import compact

INPUT_REQUIRED_VERSION = "2026-07-28"
QUESTION = "confirm"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean", "title": "Run it", "default": False}},
    "required": ["confirm"],
}


def can_ask(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared form elicitation (a bare `elicitation: {}` counts)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def uses_input_required(ctx: ServerRequestContext[Any, Any]) -> bool:
    version = ctx.protocol_version
    return bool(version) and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def question(app: str, name: str, args: dict[str, Any]) -> str:
    return f"{app}: run the destructive operation {name} with {compact(args)}? It cannot be undone."


class Seal:
    """Binds an `input_required` answer to the question asked: the state the client
    echoes back is a MAC over the caller's credential, the app, the operation and its
    arguments under a process key, so it confirms nothing else and for no one else."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def of(self, caller: str | None, app: str, name: str, args: dict[str, Any]) -> str:
        text = compact([caller, app, name, args]).encode("utf-8")
        return hmac.new(self._key, text, hashlib.sha256).hexdigest()

    def matches(
        self, state: str | None, caller: str | None, app: str, name: str, args: dict[str, Any]
    ) -> bool:
        return state is not None and hmac.compare_digest(state, self.of(caller, app, name, args))


def ask(message: str, state: str) -> types.InputRequiredResult:
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=SCHEMA)
    )
    return types.InputRequiredResult(input_requests={QUESTION: request}, request_state=state)


def said_yes(answer: object) -> bool:
    if isinstance(answer, dict):
        answer = types.ElicitResult.model_validate(answer)
    if not isinstance(answer, types.ElicitResult) or answer.action != "accept":
        return False
    return bool(answer.content and answer.content.get("confirm") is True)


def unavailable(name: str) -> ProtocolError:
    return ProtocolError(
        "confirmation_unavailable",
        f"{name} is destructive and this MCP client cannot ask its user to confirm it "
        "(no elicitation capability); it was not run.",
        operation=name,
    )


def declined(name: str) -> ProtocolError:
    return ProtocolError(
        "approval_denied", f"Your user declined {name} with these arguments; it was not run."
    )
