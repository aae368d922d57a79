"""`a2map probe` as a command: progress on stderr, one JSON summary on stdout with --json.

Exit codes: 0 mapped, 1 nothing mappable, 2 usage or unreachable.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from runtime.mapping import Mapping, Problem, check_document, dump_yaml

from .._exits import Exit
from ._errors import AuthRefused, Finding, NothingMappable, ProbeError, UsageError
from ._run import ProbeOptions, ProbeRun, probe
from .render import built, header, variables


def _say(text: str, err: TextIO) -> None:
    print(f"a2map probe: {text}", file=err, flush=True)


def _findings(findings: Sequence[Finding]) -> list[dict[str, str]]:
    return [
        {"path": f.path, **({"method": f.method} if f.method else {}), "reason": f.reason}
        for f in findings
    ]


def _summary(run: ProbeRun, output: Path, mapping: Mapping, doc: dict[str, Any]) -> dict[str, Any]:
    """What was written, from the model just built (the file is not read back)."""
    from mapper._review import review_items

    return {
        "ok": True,
        "exit": Exit.MAPPED,
        "mapping": str(output),
        "app": mapping.app.id,
        "contentHash": mapping.content_hash,
        "entities": {
            name: {"fields": len(e.fields), "confidence": e.confidence}
            for name, e in mapping.entities.items()
        },
        "operations": [op.name for op in mapping.operations],
        "unmapped": _findings(run.draft.unmapped),
        "needsReview": len(review_items(mapping)),
        "variables": variables(doc),
        "requests": run.requests,
        "seconds": round(run.seconds, 3),
    }


@dataclass(frozen=True, slots=True)
class Written:
    """A drafted mapping as model, document and text; `problems` when it does not lint."""

    mapping: Mapping
    doc: dict[str, Any]
    text: str
    problems: tuple[Problem, ...]


def write_draft(run: ProbeRun, *, schema_comment: bool) -> Written:
    """The run's draft as the runtime's model, checked, and its file text."""
    mapping, doc = built(run.draft)
    text = dump_yaml(doc, header(doc, schema_comment=schema_comment))
    return Written(mapping, doc, text, tuple(check_document(doc)))


def summary(run: ProbeRun, output: Path, written: Written) -> dict[str, Any]:
    """The `--json` summary of a probe whose mapping was written to `output`."""
    return _summary(run, output, written.mapping, written.doc)


def probe_command(
    url: str | None,
    output: Path,
    *,
    openapi: str | None = None,
    headers: Sequence[str] = (),
    app_id: str | None = None,
    collections: Sequence[str] = (),
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    options = ProbeOptions(
        url=url, openapi=openapi, headers=tuple(headers), app_id=app_id,
        collections=tuple(collections),
    )  # fmt: skip
    # A large spec becomes hundreds of thousands of short-lived objects; the cycle
    # collector would walk them again and again (a tenth of the probe's time) to free
    # next to nothing. Whatever cycles there are go at the next collection after it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _command(options, output, as_json, out or sys.stdout, err or sys.stderr)
    finally:
        if collecting:
            gc.enable()


def _command(options: ProbeOptions, output: Path, as_json: bool, out: TextIO, err: TextIO) -> int:
    try:
        if not output.parent.is_dir():
            raise UsageError(f"-o {output}: the directory {output.parent} does not exist")
        run = probe(options, progress=lambda line: _say(line, err))
    except ProbeError as exc:
        _say(exc.message, err)
        findings = exc.findings if isinstance(exc, (NothingMappable, AuthRefused)) else ()
        for f in findings:
            _say(f"  unmapped {f.method or ''} {f.path}: {f.reason}", err)
        if as_json:
            report = {"ok": False, "exit": exc.exit_code, "error": exc.message,
                      "unmapped": _findings(findings)}  # fmt: skip
            if isinstance(exc, AuthRefused):
                report["header"] = exc.header
            print(json.dumps(report, sort_keys=True), file=out)
        return exc.exit_code
    written = write_draft(run, schema_comment=(output.parent / "mapping.schema.json").is_file())
    if written.problems:
        for problem in written.problems:
            _say(f"internal: the drafted mapping does not lint: {problem.render()}", err)
        return Exit.NOTHING
    output.write_text(written.text, encoding="utf-8")
    summary = _summary(run, output, written.mapping, written.doc)
    _say(
        f"wrote {output}: {len(run.draft.entities)} entities, {len(run.draft.operations)} "
        f"operations, {len(run.draft.unmapped)} unmapped, {summary['needsReview']} to review "
        f"(a2map review {output}); {sum(run.requests.values())} requests in "
        f"{run.seconds:.2f} s",
        err,
    )
    if as_json:
        print(json.dumps(summary, sort_keys=True), file=out)
    return Exit.MAPPED
