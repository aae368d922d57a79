"""`a2map serve`: the runtime's command-line face, with clean failures."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from runtime.mapping import MappingError
from runtime.store import StoreError
from runtime.web import (
    Announce,
    DuplicateApp,
    GateRefused,
    ServeOptions,
    SharedWindowsError,
    run,
)

from ._exits import Exit


def mapping_files(paths: Sequence[Path]) -> list[Path] | str:
    """Each path as given, a directory as the `*.yaml` mappings in it (sorted); or why not."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.glob("*.yaml") if p.is_file())
            if not found:
                return f"no *.yaml mapping in the directory {path}"
            files += found
        elif path.is_file():
            files.append(path)
        else:
            return f"no such mapping file: {path}"
    return files


OPENING_FAILURES = (GateRefused, DuplicateApp, MappingError, StoreError)


def opening_failed(command: str, exc: Exception) -> int:
    """Say why the mappings could not be opened for serving (`OPENING_FAILURES`), and the
    exit code: `a2map serve` and `a2map mcp` open them alike."""
    if isinstance(exc, StoreError):
        print(f"a2map {command}: state store: {exc}", file=sys.stderr)
        return Exit.STATE
    if isinstance(exc, MappingError):
        print(f"a2map {command}: the mapping cannot be served:\n{exc.render()}", file=sys.stderr)
    else:
        print(f"a2map {command}: refused: {exc}", file=sys.stderr)
    return Exit.USAGE


def serve_command(
    mapping: Path | Sequence[Path],
    host: str,
    port: int,
    store: str | None,
    ready_json: bool,
    allow_unverified: bool = False,
    announce: Announce | None = None,
    redis_url: str | None = None,
    redis_prefix: str = "a2app:",
) -> int:
    files = mapping_files([mapping] if isinstance(mapping, Path) else mapping)
    if isinstance(files, str) or not files:
        print(f"a2map serve: {files or 'no mapping given'}", file=sys.stderr)
        return Exit.USAGE
    options = ServeOptions(
        mapping_path=files[0],
        more_mappings=tuple(files[1:]),
        host=host,
        port=port,
        store_url=store,
        ready_json=ready_json,
        allow_unverified=allow_unverified,
        redis_url=redis_url,
        redis_prefix=redis_prefix,
    )
    try:
        run(options, announce)
    except OPENING_FAILURES as exc:
        return opening_failed("serve", exc)
    except SharedWindowsError as exc:
        print(f"a2map serve: rate windows: {exc}", file=sys.stderr)
        return Exit.STATE
    except OSError as exc:
        print(f"a2map serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return Exit.STATE
    except KeyboardInterrupt:
        return Exit.OK
    return Exit.OK
