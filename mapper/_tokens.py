"""`a2map token`: create, list and revoke agent grants in the runtime store.

A token is shown exactly once, on stdout, by `create`; the store keeps only
its SHA-256, and nothing here ever prints it again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ._scopes import mapping_scope_problems
from ._storecli import StoreOption, echo_table, fail, note, opened, usage

if TYPE_CHECKING:  # `a2map --help` loads no store
    from runtime.store import Grant

_SCOPE = re.compile(r"\*|data:[A-Za-z_][A-Za-z0-9_]*:(read|write)|op:[a-z][a-z0-9-]{0,63}")
_SCOPE_HELP = "a scope is *, data:<entity>:read, data:<entity>:write or op:<operation>"
_TOKEN = re.compile(r"[\x21-\x7e]+")

token_app = typer.Typer(
    name="token",
    help="Create, list and revoke agent tokens (grants) in the runtime store.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_NO_STORE = "; create a grant first (a2map token create) or name the store with --store"


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
    mapping: Annotated[
        Path | None,
        typer.Option(
            "--mapping",
            help="refuse scopes naming entities or operations this mapping does not declare",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Create a grant and print its token once on stdout."""
    wanted = split_scopes(scopes)
    if not wanted:
        usage(f"--scopes names no scope; {_SCOPE_HELP}")
    bad = scope_problems(wanted)
    if bad:
        listed = ", ".join(repr(scope) for scope in bad)
        usage(f"invalid scope{'s' if len(bad) > 1 else ''} {listed}; {_SCOPE_HELP}")
    if not grant_id.strip() or not agent.strip():
        usage("--id and --agent must not be empty")
    if token is not None and not _TOKEN.fullmatch(token):
        usage("--token must be printable ASCII without spaces")
    if mapping is not None:
        problem = mapping_scope_problems(mapping, wanted, app_id)
        if problem:
            usage(problem)
    from runtime.store import new_token

    value = token if token is not None else new_token()
    with opened(store, create=True) as store_:
        grant = store_.create_grant(
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
    note(f"created grant {grant.id} for agent {grant.agent_name} ({where}); keep the token secret")


@token_app.command("list")
def list_(
    app_id: Annotated[
        str | None, typer.Option("--app", help="only grants that open this app")
    ] = None,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List grants (never their tokens)."""
    with opened(store, create=False, missing_hint=_NO_STORE) as store_:
        grants = store_.list_grants(app_id)
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
    echo_table(rows)


@token_app.command("revoke")
def revoke(
    grant_id: Annotated[str, typer.Argument(metavar="ID", help="credential id to revoke")],
    store: StoreOption = None,
) -> None:
    """Revoke a grant; its token stops working on the next request."""
    with opened(store, create=False, missing_hint=_NO_STORE) as store_:
        if store_.revoke_grant(grant_id):
            typer.echo(f"revoked {grant_id}")
            return
        if store_.get_grant(grant_id) is None:
            fail(f"no grant with id {grant_id!r}")
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
