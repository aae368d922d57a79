"""`a2map approvals`: the owner's out-of-band answer to destructive operations.

Under `serve.approvals: owner` an approval key runs its call only once the
owner approved it here. The arguments shown come from the agent: they are
printed escaped, so no control character reaches the owner's terminal.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._storecli import StoreOption, echo_table, fail, opened, usage

if TYPE_CHECKING:  # `a2map --help` loads no store
    from runtime.store import Approval, Decision, Store

MIN_PREFIX = 8
SHORT_KEY = 12
ARGS_WIDTH = 60

_HEX = re.compile(r"[0-9a-fA-F]+")
_NO_STORE = "; the runtime creates it when it first serves (a2map serve)"

approvals_app = typer.Typer(
    name="approvals",
    help=(
        "List, approve and deny the approval keys of destructive operations "
        "(they decide under serve.approvals: owner)."
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)

AppOption = Annotated[
    str | None, typer.Option("--app", help="only this app id; default: every app in the store")
]
JsonOption = Annotated[bool, typer.Option("--json", help="print JSON, for scripts")]
KeyArgument = Annotated[
    str,
    typer.Argument(
        metavar="KEY", help=f"the approval key, or a unique prefix of {MIN_PREFIX}+ characters"
    ),
]


@approvals_app.command("list")
def list_(app_id: AppOption = None, store: StoreOption = None, as_json: JsonOption = False) -> None:
    """List approval keys: key, app, operation, arguments, issued, expires, state."""
    with opened(store, create=False, missing_hint=_NO_STORE) as store_:
        found = store_.list_approvals(app_id)
    if as_json:
        typer.echo(json.dumps([approval_doc(a) for a in found], indent=2))
        return
    if not found:
        typer.echo("no approval keys")
        return
    rows = [("KEY", "APP", "OPERATION", "ARGS", "ISSUED", "EXPIRES", "STATE")]
    rows += [
        (
            a.key[:SHORT_KEY],
            a.app_id,
            a.operation,
            _cut(shown_args(a.args), ARGS_WIDTH),
            _minute(a.issued_at),
            _minute(a.expires_at),
            a.state,
        )
        for a in found
    ]
    echo_table(rows)


@approvals_app.command("approve")
def approve(
    key: KeyArgument,
    app_id: AppOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Approve one call: its key then runs it once, for the agent that sends it."""
    _decide(key, "approved", app_id, store, as_json)


@approvals_app.command("deny")
def deny(
    key: KeyArgument,
    app_id: AppOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Deny one call: its key answers 403 approval_denied until it expires."""
    _decide(key, "denied", app_id, store, as_json)


def _decide(key: str, decision: Decision, app_id: str | None, url: str | None, js: bool) -> None:
    wanted = key.strip().lower()
    if not _HEX.fullmatch(wanted) or not MIN_PREFIX <= len(wanted) <= 64:
        usage(f"KEY must be {MIN_PREFIX} to 64 hexadecimal characters of an approval key")
    with opened(url, create=False, missing_hint=_NO_STORE) as store_:
        target = _one(store_, wanted, app_id)
        if target.state in ("used", "expired"):
            when = target.used_at if target.state == "used" else target.expires_at
            fail(
                f"approval key {target.key[:SHORT_KEY]} of {target.app_id} "
                f"was {target.state} at {_instant(when)}; nothing was decided"
            )
        decided = store_.decide_approval(target.app_id, target.key, decision)
        if decided is None:
            fail(f"approval key {target.key[:SHORT_KEY]} was used or expired just now")
    if js:
        typer.echo(json.dumps(approval_doc(decided), indent=2))
        return
    verb = "approved" if decision == "approved" else "denied"
    then = (
        f"it runs once if sent before {_instant(decided.expires_at)}"
        if decision == "approved"
        else f"it is refused until it expires at {_instant(decided.expires_at)}"
    )
    typer.echo(
        f"{verb} {decided.key} (app {decided.app_id}): {decided.operation} "
        f"{shown_args(decided.args)}; {then}"
    )


def _one(store: Store, prefix: str, app_id: str | None) -> Approval:
    matches = store.list_approvals(app_id, key_prefix=prefix)
    if not matches:
        where = f" in app {app_id}" if app_id else ""
        fail(f"no approval key {prefix}{where}")
    if len(matches) > 1:
        named = ", ".join(f"{a.key[:SHORT_KEY]} ({a.app_id})" for a in matches[:5])
        usage(f"{prefix} matches {len(matches)} approval keys: {named}; give more of it or --app")
    return matches[0]


def approval_doc(approval: Approval) -> dict[str, Any]:
    return {
        "key": approval.key,
        "app_id": approval.app_id,
        "operation": approval.operation,
        "args": approval.args,
        "issued_at": approval.issued_at.isoformat(),
        "expires_at": approval.expires_at.isoformat(),
        "state": approval.state,
        "decision": approval.decision,
        "decided_at": approval.decided_at.isoformat() if approval.decided_at else None,
        "used_at": approval.used_at.isoformat() if approval.used_at else None,
    }


def shown_args(args: Any) -> str:
    """Compact JSON with every unprintable character escaped (JSON escapes only C0)."""
    if args is None:
        return "(not recorded)"
    text = json.dumps(args, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in text)


def _escaped(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _minute(at: datetime) -> str:
    return f"{at:%Y-%m-%d %H:%M}Z"


def _instant(at: datetime | None) -> str:
    return f"{at:%Y-%m-%d %H:%M:%S}Z" if at is not None else "?"
