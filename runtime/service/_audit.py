"""The audit of write attempts (protocol §20): the store's table, and a JSON-lines file."""

from __future__ import annotations

import json
import os
from typing import TypedDict

from runtime.protocol import Caller, ProtocolError

from ._clock import server_now
from ._security import rate_key
from ._state import RuntimeState


class Entry(TypedDict):
    """One audit entry's fields; `credential_id` is a grant id, never a token."""

    target: str
    outcome: str
    credential_id: str | None
    agent_name: str | None
    asserted_agent: str | None
    principal: str | None
    record_id: str | None
    code: str | None


def entry(
    caller: Caller | None,
    target: str,
    outcome: str,
    *,
    record_id: str | None = None,
    code: str | None = None,
    asserted_agent: str | None = None,
) -> Entry:
    return {
        "target": target,
        "outcome": outcome,
        "credential_id": caller.credential_id if caller else None,
        "agent_name": caller.agent_name if caller else None,
        "asserted_agent": asserted_agent,
        "principal": caller.principal if caller else None,
        "record_id": record_id,
        "code": code,
    }


def audit(state: RuntimeState, fields: Entry) -> None:
    """An attempt that wrote nothing, in the store and the file (a successful write's
    entry is committed with the rest of its end: `_chain`)."""
    state.store.add_audit(app_id=state.mapping.app.id, **fields)
    to_file(state, fields)


def to_file(state: RuntimeState, fields: Entry) -> None:
    """The entry as one JSON line of the audit file, when there is one."""
    if state.audit_file is not None:
        line = json.dumps({"at": server_now(), "app": state.mapping.app.id, **fields})
        # One short O_APPEND write per entry: lines from several processes never interleave.
        fd = os.open(state.audit_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)


def meter(state: RuntimeState, headers: dict[str, str], klass: str, *, audited: bool) -> None:
    """The rate gate; a refused write attempt is audited (target `rate:<class>`)."""
    try:
        state.limiter.hit(rate_key(headers), klass)
    except ProtocolError as exc:
        if audited:
            audit(state, entry(None, f"rate:{klass}", "rejected", code=exc.code))
        raise
