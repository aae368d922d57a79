"""`a2map mcp`: the MCP gateway on stdio, for a desktop client that starts it.

stdout carries the protocol and nothing else; every note goes to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

from runtime.gateway import UnknownToken, serve_stdio
from runtime.service import RuntimeState, close_states, owner_approved
from runtime.store import TokenFileError, read_token_file
from runtime.web import ServeOptions, build_states, runtime_app

from ._exits import Exit
from ._serve import OPENING_FAILURES, mapping_files, opening_failed

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


def mcp_command(
    mappings: list[Path], store: str | None, allow_unverified: bool, token_file: Path | None
) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    files = mapping_files(mappings)
    if isinstance(files, str) or not files:
        print(f"a2map mcp: {files or 'no mapping given'}", file=sys.stderr)
        return Exit.USAGE
    states: list[RuntimeState] = []
    try:
        options = ServeOptions(
            mapping_path=files[0], more_mappings=tuple(files[1:]), store_url=store,
            allow_unverified=allow_unverified,
        )  # fmt: skip
        states, local = build_states(options)
        token = _token(token_file, local)
        runtime = runtime_app(states)
        served = serve_stdio(runtime.app, runtime.lifespan(), runtime.bases, token,
                             owner_approvals=owner_approved(states))  # fmt: skip
        asyncio.run(served)
    except TokenFileError as exc:  # a StoreError, but the caller's to fix
        print(f"a2map mcp: {exc}", file=sys.stderr)
        return Exit.USAGE
    except OPENING_FAILURES as exc:
        return opening_failed("mcp", exc)
    except UnknownToken as exc:
        print(
            f"a2map mcp: the agent token is not known to {exc} (unknown, revoked or expired); "
            "make one with `a2map token create`",
            file=sys.stderr,
        )
        return Exit.USAGE
    except KeyboardInterrupt:
        return Exit.OK
    finally:
        if states:
            close_states(states)
    return Exit.OK
