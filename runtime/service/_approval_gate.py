"""The approval gate before a destructive operation runs (protocol §13).

`serve.approvals: host` (the default) is the reference's rule: the key proves
that whoever holds it was issued it for these exact arguments, and the agent
host is trusted to have asked its user first. Nothing stops an agent that
holds the key from sending it back itself.

`serve.approvals: owner` moves the decision out of the agent's reach: the key
runs the call only after the owner approved it with `a2map approvals approve`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from runtime.protocol import ProtocolError, approval_key
from runtime.store import Approval

from ._state import RuntimeState

APPROVAL_HEADERS = ("x-a2app-approval", "x-lui-approval")
HOST_TTL_SECONDS = 600
# The owner answers out of band, perhaps hours later; an unanswered key lapses after a day.
OWNER_TTL_SECONDS = 24 * 3600


def owner_approved(states: Sequence[RuntimeState]) -> frozenset[str]:
    """The ids of the apps whose owner approves destructive calls out of band."""
    return frozenset(s.mapping.app.id for s in states if s.mapping.serve.approvals == "owner")


def approve(
    state: RuntimeState, name: str, args: dict[str, object], headers: dict[str, str]
) -> None:
    """Return when the call may run; else raise the refusal the protocol prescribes."""
    key = approval_key(name, args)
    presented = next((headers[h] for h in APPROVAL_HEADERS if headers.get(h)), None)
    if state.mapping.serve.approvals == "owner":
        _by_owner(state, name, args, key, presented)
    else:
        _by_host(state, name, args, key, presented)


def _by_host(
    state: RuntimeState, name: str, args: dict[str, object], key: str, presented: str | None
) -> None:
    app = state.mapping.app.id
    if presented is None:
        state.store.issue_approval(app, key, name, HOST_TTL_SECONDS, args=args)
        raise ProtocolError(
            "approval_required",
            f"{name} is destructive: confirm this exact call with your user, then call "
            "again with the X-A2App-Approval header set to approvalKey.",
            approvalKey=key,
        )
    if presented != key or not state.store.consume_approval(app, key):
        raise _stale(key)


def _by_owner(
    state: RuntimeState, name: str, args: dict[str, object], key: str, presented: str | None
) -> None:
    app = state.mapping.app.id
    if presented is None:
        asked = state.store.request_approval(app, key, name, args, OWNER_TTL_SECONDS)
        if asked.state == "denied":
            raise _denied(asked)
        done = "has approved" if asked.state == "approved" else "must approve"
        raise ProtocolError(
            "approval_required",
            f"{name} is destructive: the owner {done} this exact call out of band "
            f"(a2map approvals approve {key}); call again with the X-A2App-Approval "
            "header set to approvalKey.",
            approvalKey=key,
            expiresAt=_instant(asked.expires_at),
        )
    if presented != key:
        raise _stale(key)
    if state.store.consume_approved(app, key):
        return
    found = state.store.approval(app, key)
    if found is None or found.state not in ("pending", "denied"):
        raise _stale(key)
    if found.state == "denied":
        raise _denied(found)
    raise ProtocolError(
        "approval_pending",
        "The owner has not approved this call yet; ask them to run "
        f"`a2map approvals approve {key}`, then call again with the same key.",
        approvalKey=key,
        expiresAt=_instant(found.expires_at),
    )


def _stale(key: str) -> ProtocolError:
    return ProtocolError(
        "approval_required",
        "The approval key does not match these arguments, or it was used or has expired; "
        "call once more without it to get a new one.",
        approvalKey=key,
    )


def _denied(found: Approval) -> ProtocolError:
    return ProtocolError(
        "approval_denied",
        f"The owner denied this call of {found.operation} with these arguments.",
        approvalKey=found.key,
    )


def _instant(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"
