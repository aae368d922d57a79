"""`a2map token`: create, list and revoke agent grants in the runtime store.

A token is shown exactly once, on stdout, by `create`; the store keeps only
its SHA-256, and nothing here ever prints it again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer

from runtime.store import Grant, Store, StoreError, StoreUrlError, default_store_url, new_token

EXIT_STATE, EXIT_USAGE = 1, 2

_SCOPE = re.compile(r"\*|data:[A-Za-z_][A-Za-z0-9_]*:(read|write)|op:[a-z][a-z0-9-]{0,63}")
_SCOPE_HELP = "a scope is *, data:<entity>:read, data:<entity>:write or op:<operation>"
_TOKEN = re.compile(r"[\x21-\x7e]+")

token_app = typer.Typer(
    name="token",
    help="Create, list and revoke agent tokens (grants) in the runtime store.",
    no_args_is_help=True,
)

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="store URL; default $A2APP_STORE, else SQLite in $A2APP_HOME or ./.a2app",
        show_default=False,
    ),
]


def split_scopes(text: str) -> list[str]:
    """Scopes separated by spaces or commas, duplicates dropped, order kept."""
    return list(dict.fromkeys(part for part in re.split(r"[\s,]+", text) if part))


def scope_problems(scopes: Iterable[str]) -> list[str]:
    """Every scope that does not follow the protocol's grammar (§16)."""
    return [scope for scope in scopes if not _SCOPE.fullmatch(scope)]


@token_app.command("create")
def create(
    grant_id: Annotated[str, typer.Option("--id", help="credential id, e.g. cred_ci")],
    agent: Annotated[str, typer.Option("--agent", help="agent name the grant is for")],
    scopes: Annotated[str, typer.Option("--scopes", help="scopes, space separated: 'S1 S2'")],
    token: Annotated[
        str | None,
        typer.Option("--token", help="use this token instead of a new random one"),
    ] = None,
    app_id: Annotated[
        str | None,
        typer.Option("--app", help="only this app id; default: every app in the store"),
    ] = None,
    principal: Annotated[str, typer.Option("--principal", help="who the agent acts for")] = (
        "owner"
    ),
    store: StoreOption = None,
) -> None:
    """Create a grant and print its token once on stdout."""
    wanted = split_scopes(scopes)
    if not wanted:
        _usage(f"--scopes names no scope; {_SCOPE_HELP}")
    bad = scope_problems(wanted)
    if bad:
        listed = ", ".join(repr(scope) for scope in bad)
        _usage(f"invalid scope{'s' if len(bad) > 1 else ''} {listed}; {_SCOPE_HELP}")
    if not grant_id.strip() or not agent.strip():
        _usage("--id and --agent must not be empty")
    if token is not None and not _TOKEN.fullmatch(token):
        _usage("--token must be printable ASCII without spaces")
    value = token if token is not None else new_token()
    with _opened(store) as opened:
        grant = opened.create_grant(
            id=grant_id,
            agent_name=agent,
            scopes=wanted,
            token=value,
            app_id=app_id,
            principal=principal,
        )
    # the one place a token is ever shown
    typer.echo(value)
    where = f"app {grant.app_id}" if grant.app_id else "every app in this store"
    _note(f"created grant {grant.id} for agent {grant.agent_name} ({where}); keep the token secret")


@token_app.command("list")
def list_(
    app_id: Annotated[
        str | None, typer.Option("--app", help="only grants that open this app")
    ] = None,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List grants (never their tokens)."""
    with _opened(store) as opened:
        grants = opened.list_grants(app_id)
    if as_json:
        typer.echo(json.dumps([_grant_doc(g) for g in grants], indent=2))
        return
    if not grants:
        typer.echo("no grants")
        return
    rows = [("ID", "APP", "AGENT", "PRINCIPAL", "SCOPES", "CREATED", "STATUS")]
    rows += [
        (
            g.id,
            g.app_id or "*",
            g.agent_name,
            g.principal,
            " ".join(g.scopes),
            f"{g.created_at:%Y-%m-%d %H:%M}Z",
            "active" if g.active else "revoked",
        )
        for g in grants
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


@token_app.command("revoke")
def revoke(
    grant_id: Annotated[str, typer.Argument(metavar="ID", help="credential id to revoke")],
    store: StoreOption = None,
) -> None:
    """Revoke a grant; its token stops working on the next request."""
    with _opened(store) as opened:
        if opened.revoke_grant(grant_id):
            typer.echo(f"revoked {grant_id}")
            return
        if opened.get_grant(grant_id) is None:
            _fail(f"no grant with id {grant_id!r}")
    typer.echo(f"{grant_id} was already revoked")


def _grant_doc(grant: Grant) -> dict[str, object]:
    return {
        "id": grant.id,
        "app_id": grant.app_id,
        "agent_name": grant.agent_name,
        "principal": grant.principal,
        "scopes": list(grant.scopes),
        "created_at": grant.created_at.isoformat(),
        "revoked_at": grant.revoked_at.isoformat() if grant.revoked_at else None,
    }


@contextmanager
def _opened(url: str | None) -> Iterator[Store]:
    try:
        store = Store.open(url or default_store_url())
    except StoreUrlError as exc:
        _usage(str(exc))
    except StoreError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot prepare the state directory: {exc}")
    try:
        yield store
    except StoreError as exc:
        _fail(str(exc))
    finally:
        store.close()


def _note(message: str) -> None:
    typer.echo(message, err=True)


def _fail(message: str) -> NoReturn:
    _note(f"error: {message}")
    raise typer.Exit(EXIT_STATE)


def _usage(message: str) -> NoReturn:
    _note(f"usage error: {message}")
    raise typer.Exit(EXIT_USAGE)
