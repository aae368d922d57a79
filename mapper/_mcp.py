"""`a2map mcp`: the MCP gateway on stdio, for a desktop client that starts it.

stdout carries the protocol and nothing else; every note goes to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Mount

from runtime.gateway import UnknownToken, serve_stdio
from runtime.mapping import MappingError
from runtime.service import RuntimeState
from runtime.store import StoreError, TokenFileError, read_token_file
from runtime.web import GateRefused, ServeOptions, build_state, create_app

from ._exits import Exit

TOKEN_ENV = "A2APP_TOKEN"


def _token(token_file: Path | None, local: Path) -> str:
    """--token-file, else $A2APP_TOKEN, else the runtime's own local token file."""
    if token_file is not None:
        token = read_token_file(token_file)
        if token is None:
            raise TokenFileError(f"no such token file: {token_file}")
        return token
    from_env = os.environ.get(TOKEN_ENV, "").strip()
    if from_env:
        return from_env
    token = read_token_file(local)
    if token is None:
        raise TokenFileError(f"no agent token: set {TOKEN_ENV} or pass --token-file")
    return token


def _several(states: list[RuntimeState]) -> Starlette:
    """Several apps in one ASGI app, app X under /apps/X, each app's lifespan run."""
    apps = {state.mapping.app.id: create_app(state) for state in states}

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for sub in apps.values():
                await stack.enter_async_context(sub.router.lifespan_context(sub))
            yield

    routes = [Mount(f"/apps/{app_id}", app=sub) for app_id, sub in apps.items()]
    return Starlette(routes=routes, lifespan=lifespan)


def mcp_command(
    mappings: list[Path], store: str | None, allow_unverified: bool, token_file: Path | None
) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    missing = [m for m in mappings if not m.is_file()]
    if missing:
        print(f"a2map mcp: no such mapping file: {missing[0]}", file=sys.stderr)
        return Exit.USAGE
    states: list[RuntimeState] = []
    try:
        local = None
        for mapping in mappings:
            options = ServeOptions(
                mapping_path=mapping, store_url=store, allow_unverified=allow_unverified
            )
            state, local = build_state(options)
            states.append(state)
        assert local is not None
        token = _token(token_file, local)
        if len(states) == 1:
            app: Starlette = create_app(states[0])
            bases = {states[0].mapping.app.id: ""}
        else:
            app = _several(states)
            bases = {s.mapping.app.id: f"/apps/{s.mapping.app.id}" for s in states}
        owner = frozenset(s.mapping.app.id for s in states if s.mapping.serve.approvals == "owner")
        asyncio.run(serve_stdio(app, bases, token, owner_approvals=owner))
    except GateRefused as exc:
        print(f"a2map mcp: refused: {exc}", file=sys.stderr)
        return Exit.USAGE
    except MappingError as exc:
        print(f"a2map mcp: the mapping cannot be served:\n{exc.render()}", file=sys.stderr)
        return Exit.USAGE
    except UnknownToken as exc:
        print(
            f"a2map mcp: the agent token is not known to {exc} (unknown, revoked or expired); "
            "make one with `a2map token create`",
            file=sys.stderr,
        )
        return Exit.USAGE
    except TokenFileError as exc:
        print(f"a2map mcp: {exc}", file=sys.stderr)
        return Exit.USAGE
    except StoreError as exc:
        print(f"a2map mcp: state store: {exc}", file=sys.stderr)
        return Exit.STATE
    except KeyboardInterrupt:
        return Exit.OK
    finally:
        for state in states:
            state.close()
    return Exit.OK
