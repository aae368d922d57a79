"""`a2map import URL`: the agent host's one command: probe, lint, verify, then serve what is proven.

    probe     read-only, into `<dir>/<app id>.yaml` (`mapping.yaml` without --app-id)
    lint      the file as written
    verify    read-only unless --verify-writes (the app may be someone's production);
              a refused run writes the corrections it proved to `<name>.corrected.yaml`,
              which is verified in turn and served instead when it proves as much
    serve     the proven part (a partial stamp withholds what was refused), in the
              foreground until a stop signal, as `a2map serve`

Each step runs in this process through the command it stands for, which prints
as itself (`a2map probe ...`) so it can be pasted; everything but the summary
goes to stderr. Stdout carries one line once serving starts: the JSON summary
with --json (URL, app, mapping, the agent's token file, what is served and what
is withheld with its reasons), else the same in words.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.mapping import Mapping, MappingError, load_mapping, stamp_path, stamp_status
from runtime.service import RuntimeState

from ._exits import Exit
from ._lint import lint_files
from ._serve import serve_command
from ._shell import a2map_line, port_problem
from .probe import probe_command
from .verify import verify_command

NOT_WRITTEN = "writes not verified: imported without --verify-writes"
READ_STEP = "Prove every claim of the mapping that reads can prove (read-only)"
WRITE_STEP = "Prove every claim of the mapping with real reads and writes"


@dataclass(frozen=True, slots=True)
class ImportOptions:
    url: str
    headers: tuple[str, ...] = ()
    openapi: str | None = None
    app_id: str | None = None
    collections: tuple[str, ...] = ()
    verify_writes: bool = False
    host: str = "127.0.0.1"
    port: int = 8765
    directory: Path = Path(".a2app")
    store: str | None = None
    as_json: bool = False

    @property
    def mapping(self) -> Path:
        return self.directory / f"{self.app_id or 'mapping'}.yaml"

    @property
    def corrected(self) -> Path:
        return self.mapping.with_name(self.mapping.stem + ".corrected.yaml")


class Refused(Exception):
    """The import stops here; `code` is its exit, the message says why."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _step(text: str) -> None:
    _say(f"\n== {text}")


@contextlib.contextmanager
def _to_stderr() -> Iterator[None]:
    """A step's own report goes to stderr: stdout is the summary's alone."""
    with contextlib.redirect_stdout(sys.stderr):
        yield
    sys.stderr.flush()


def _probe(options: ImportOptions) -> None:
    _step("Probe it, read-only, into a mapping")
    args = ["probe", options.url, "-o", str(options.mapping)]
    args += [w for h in options.headers for w in ("--header", h)]
    args += ["--openapi", options.openapi] if options.openapi else []
    args += ["--app-id", options.app_id] if options.app_id else []
    args += [w for c in options.collections for w in ("--collection", c)]
    _say(a2map_line(args))
    code = probe_command(
        options.url, options.mapping, openapi=options.openapi, headers=options.headers,
        app_id=options.app_id, collections=options.collections, out=sys.stderr, err=sys.stderr,
    )  # fmt: skip
    if code != Exit.MAPPED:
        raise Refused(code, "the probe mapped nothing" if code == Exit.NOTHING else "probe failed")
    _say(a2map_line(["lint", str(options.mapping)]))
    with _to_stderr():
        if lint_files([options.mapping]) != Exit.VALID:
            raise Refused(Exit.FAILED, f"{options.mapping} does not lint")


def _verify(options: ImportOptions, path: Path, corrected: Path | None) -> int:
    args = ["verify", str(path)] + ([] if options.verify_writes else ["--read-only"])
    args += ["--write-corrected", str(corrected)] if corrected else []
    _say(a2map_line(args))
    with _to_stderr():
        return verify_command(
            path, read_only=not options.verify_writes, write_corrected=corrected, progress=False
        )


def _corrects(options: ImportOptions) -> bool:
    """Whether the corrected copy says anything else than the mapping (not only its layout)."""
    try:
        fixed = load_mapping(options.corrected, resolve_env=False)
        probed = load_mapping(options.mapping, resolve_env=False)
    except (MappingError, OSError):
        return False  # a copy that does not load corrects nothing
    return fixed.content_hash != probed.content_hash


def _drop_unchanged(options: ImportOptions) -> None:
    """A corrected copy with no correction in it is noise beside the mapping."""
    if options.corrected.is_file() and not _corrects(options):
        options.corrected.unlink()
        _say(f"(no correction: {options.corrected.name} removed)")


def _refused_claims(path: Path) -> int | None:
    """How many claims the fresh stamp beside `path` withholds; None when none is fresh."""
    try:
        mapping = load_mapping(path)
    except MappingError:  # a corrected copy that does not load proves nothing
        return None
    status = stamp_status(path, mapping)
    if not status.fresh or status.stamp is None:
        return None
    return len(status.stamp.refused)


def _verified(options: ImportOptions) -> Path:
    """The mapping to serve: the probed one, or its corrected copy when that proves as much."""
    _step(WRITE_STEP if options.verify_writes else READ_STEP)
    code = _verify(options, options.mapping, options.corrected)
    if code == Exit.USAGE:
        raise Refused(Exit.USAGE, "verify could not run (see above)")
    _drop_unchanged(options)
    if code == Exit.VERIFIED:
        return options.mapping
    first = _refused_claims(options.mapping)
    chosen = options.mapping if first is not None else None
    if options.corrected.is_file():
        _step("Verify the corrections the verifier proved, in their own file")
        again = _verify(options, options.corrected, None)
        if again == Exit.USAGE and chosen is None:
            raise Refused(Exit.USAGE, "verify could not run (see above)")
        fixed = _refused_claims(options.corrected)
        if fixed is not None and (first is None or fixed <= first):
            chosen = options.corrected
    if chosen is None:
        raise Refused(Exit.FAILED, "nothing was proven that could be served")
    return chosen


def summary(
    url: str, state: RuntimeState, token_file: Path, options: ImportOptions, mapping: Path
) -> dict[str, Any]:
    """What is served and what is withheld, from the state the runtime serves."""
    served: Mapping = state.mapping
    withheld = state.withheld
    writes = {n: list(c) for n, c in withheld.writes.items()}
    operations = {n: list(c) for n, c in withheld.operations.items()}
    if state.reads_only:
        writes = {n: [NOT_WRITTEN] for n in served.entities}
        operations.update({op.name: [NOT_WRITTEN] for op in served.operations if not op.read_only})
    return {
        "ok": True,
        "url": url,
        "app": served.app.id,
        "mapping": str(mapping),
        "stamp": str(stamp_path(mapping)),
        "tokenFile": str(token_file),
        "writesVerified": options.verify_writes,
        "served": {
            "entities": {n: {"reads": True, "writes": n not in writes} for n in served.entities},
            "operations": [op.name for op in served.operations if op.name not in operations],
        },
        "withheld": {
            "entities": {n: list(c) for n, c in withheld.reads.items()},
            "writes": writes,
            "operations": operations,
            "pushdowns": {n: list(c) for n, c in withheld.pushdowns.items()},
        },
    }


def _words(doc: dict[str, Any]) -> str:
    gone = doc["withheld"]
    lines = [
        f"Serving {doc['app']} at {doc['url']} (describe: {doc['url']}/api/_a2app/describe)",
        f"Agent token (mode 0600): {doc['tokenFile']}",
        f"Mapping: {doc['mapping']}  (its stamp: {doc['stamp']})",
        f"Served: {', '.join(doc['served']['entities']) or 'no entity'}; "
        f"operations: {', '.join(doc['served']['operations']) or 'none'}",
    ]
    for kind, label in (("entities", "not served"), ("writes", "writes refused"),
                        ("operations", "refused"), ("pushdowns", "evaluated here")):  # fmt: skip
        lines += [
            f"Withheld: {name}: {label} ({'; '.join(why)})" for name, why in gone[kind].items()
        ]
    return "\n".join(lines)


def _serve(options: ImportOptions, mapping: Path) -> int:
    _step("Serve the proven part as an A2App")
    args = ["serve", str(mapping), "--port", str(options.port), "--host", options.host]
    args += ["--store", options.store] if options.store else []
    _say(a2map_line(args))

    def announce(url: str, state: RuntimeState, token_file: Path) -> str:
        doc = summary(url, state, token_file, options, mapping)
        return json.dumps(doc, sort_keys=True) if options.as_json else _words(doc)

    return serve_command(
        mapping, options.host, options.port, options.store, ready_json=False, announce=announce
    )


def import_command(options: ImportOptions) -> int:
    problem = port_problem(options.host, options.port)
    if problem:
        return _refuse(options, Exit.USAGE, f"{problem}; choose another with --port")
    try:
        options.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        return _refuse(options, Exit.USAGE, f"cannot use --dir {options.directory}: {exc}")
    try:
        _probe(options)
        mapping = _verified(options)
    except Refused as exc:
        return _refuse(options, exc.code, str(exc))
    return _serve(options, mapping)


def _refuse(options: ImportOptions, code: int, message: str) -> int:
    _say(f"a2map import: refused: {message}")
    if options.as_json:
        print(json.dumps({"ok": False, "exit": code, "error": message}, sort_keys=True))
    return code
