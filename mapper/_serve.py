"""`a2map serve`: the runtime's command-line face, with clean failures."""

from __future__ import annotations

import sys
from pathlib import Path

from runtime.mapping import MappingError
from runtime.store import StoreError
from runtime.web import Announce, GateRefused, ServeOptions, run

from ._exits import Exit


def serve_command(
    mapping: Path,
    host: str,
    port: int,
    store: str | None,
    ready_json: bool,
    allow_unverified: bool = False,
    announce: Announce | None = None,
) -> int:
    if not mapping.is_file():
        print(f"a2map serve: no such mapping file: {mapping}", file=sys.stderr)
        return Exit.USAGE
    options = ServeOptions(
        mapping_path=mapping,
        host=host,
        port=port,
        store_url=store,
        ready_json=ready_json,
        allow_unverified=allow_unverified,
    )
    try:
        run(options, announce)
    except GateRefused as exc:
        print(f"a2map serve: refused: {exc}", file=sys.stderr)
        return Exit.USAGE
    except MappingError as exc:
        print(f"a2map serve: the mapping cannot be served:\n{exc.render()}", file=sys.stderr)
        return Exit.USAGE
    except StoreError as exc:
        print(f"a2map serve: state store: {exc}", file=sys.stderr)
        return Exit.STATE
    except OSError as exc:
        print(f"a2map serve: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return Exit.STATE
    except KeyboardInterrupt:
        return Exit.OK
    return Exit.OK
