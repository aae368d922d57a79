"""`a2map probe` as a command: progress on stderr, one JSON summary on stdout with --json.

Exit codes: 0 mapped, 1 nothing mappable, 2 usage or unreachable.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import yaml

from runtime.mapping import check_text, content_hash

from .._exits import Exit
from ._errors import Finding, NothingMappable, ProbeError, UsageError
from ._render import render, variables
from ._run import ProbeOptions, ProbeRun, probe


def _say(text: str, err: TextIO) -> None:
    print(f"a2map probe: {text}", file=err, flush=True)


def _findings(findings: Sequence[Finding]) -> list[dict[str, str]]:
    return [
        {"path": f.path, **({"method": f.method} if f.method else {}), "reason": f.reason}
        for f in findings
    ]


def _summary(run: ProbeRun, output: Path, text: str) -> dict[str, Any]:
    from mapper._review import review_items

    doc = yaml.safe_load(text)
    draft = run.draft
    return {
        "ok": True,
        "exit": Exit.MAPPED,
        "mapping": str(output),
        "app": draft.app_id,
        "contentHash": content_hash(doc),
        "entities": {
            name: {"fields": len(e.fields), "confidence": e.confidence}
            for name, e in draft.entities.items()
        },
        "operations": [op.name for op in draft.operations],
        "unmapped": _findings(draft.unmapped),
        "needsReview": len(review_items(doc)),
        "variables": variables(doc),
        "requests": run.requests,
        "seconds": round(run.seconds, 3),
    }


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
    out = out or sys.stdout
    err = err or sys.stderr
    options = ProbeOptions(
        url=url, openapi=openapi, headers=tuple(headers), app_id=app_id,
        collections=tuple(collections),
    )  # fmt: skip
    try:
        if not output.parent.is_dir():
            raise UsageError(f"-o {output}: the directory {output.parent} does not exist")
        run = probe(options, progress=lambda line: _say(line, err))
    except ProbeError as exc:
        _say(exc.message, err)
        findings = exc.findings if isinstance(exc, NothingMappable) else ()
        for f in findings:
            _say(f"  unmapped {f.method or ''} {f.path}: {f.reason}", err)
        if as_json:
            report = {"ok": False, "exit": exc.exit_code, "error": exc.message,
                      "unmapped": _findings(findings)}  # fmt: skip
            print(json.dumps(report, sort_keys=True), file=out)
        return exc.exit_code
    text = render(run.draft, schema_comment=(output.parent / "mapping.schema.json").is_file())
    _, problems = check_text(text)
    if problems:
        for problem in problems:
            _say(f"internal: the drafted mapping does not lint: {problem.render()}", err)
        return Exit.NOTHING
    output.write_text(text, encoding="utf-8")
    summary = _summary(run, output, text)
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
