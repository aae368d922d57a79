"""`a2map verify`: load, verify, then write the stamp and the reports; exit 0, 1 or 2."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path

from runtime.mapping import (
    Mapping,
    MappingError,
    check_text,
    load_mapping,
    remove_stamp,
    stamp_path,
    withhold,
)
from runtime.mapping import write_stamp as save_stamp

from .._exits import Exit
from ._context import SWEEP_AFTER_SECONDS, VerifyOptions
from ._correct import corrected_text
from ._junit import junit_xml
from ._progress import RichProgress
from ._render import render
from ._report import Report
from ._runner import run_verification


def _usage(message: str) -> int:
    print(f"a2map verify: {message}", file=sys.stderr)
    return Exit.USAGE


def verify_command(
    mapping_path: Path,
    *,
    read_only: bool = False,
    json_file: Path | None = None,
    junit_file: Path | None = None,
    only: tuple[str, ...] = (),
    include_destructive: bool = False,
    write_corrected: Path | None = None,
    progress: bool = True,
    allow_leftovers: bool = False,
    scope: tuple[str, ...] = (),
    sweep_after: float | None = None,
) -> int:
    if not mapping_path.is_file():
        return _usage(f"no such mapping file: {mapping_path}")
    if write_corrected is not None and write_corrected.resolve() == mapping_path.resolve():
        return _usage("--write-corrected must name another file: verify never rewrites a mapping")
    if read_only and include_destructive:
        return _usage("--read-only and --include-destructive exclude each other")
    if read_only and allow_leftovers:
        return _usage("--read-only and --allow-leftovers exclude each other")
    if sweep_after is None:
        sweep_after = SWEEP_AFTER_SECONDS
    if not sweep_after >= 0:
        return _usage(f"--sweep-after must be 0 or more seconds, not {sweep_after}")
    try:
        mapping = load_mapping(mapping_path)
    except MappingError as exc:
        return _usage(f"the mapping cannot be loaded:\n{exc.render()}")
    if only and scope:
        return _usage("--only and --scope exclude each other")
    for option, names in (("--only", only), ("--scope", scope)):
        unknown = [name for name in names if name not in mapping.entities]
        if unknown:
            declared = ", ".join(mapping.entities)
            return _usage(f"{option} names no entity: {', '.join(unknown)} (declared: {declared})")
    options = VerifyOptions(
        read_only, include_destructive, tuple(only), allow_leftovers, tuple(scope), sweep_after
    )

    async def verify() -> Report:
        task = asyncio.current_task()
        if task is not None:
            # A CI job cancelled with SIGTERM still runs the cleanup in its `finally`.
            with contextlib.suppress(NotImplementedError, RuntimeError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        shown = RichProgress() if progress else None
        return await run_verification(
            mapping, options, mapping_file=str(mapping_path), progress=shown
        )

    try:
        report = asyncio.run(verify())
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("a2map verify: interrupted; the run's own records were cleaned up", file=sys.stderr)
        return Exit.USAGE
    _stamp(mapping_path, mapping, report)
    if json_file is not None:
        json_file.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    if junit_file is not None:
        junit_file.write_text(junit_xml(report), encoding="utf-8")
    print(render(report))
    if report.outcome in ("refused", "partly-verified") and report.stamp_file is not None:
        print(f"partly verified: stamp written for the proven part ({report.stamp_file})")
    if write_corrected is not None:
        _corrected(mapping_path, report, write_corrected)
    if report.outcome == "aborted":
        return Exit.USAGE
    # Partly verified is no whole proof: a CI job sees it as it sees a refusal.
    return Exit.VERIFIED if report.outcome == "verified" else Exit.REFUSED


def _stamp(mapping_path: Path, mapping: Mapping, report: Report) -> None:
    path = stamp_path(mapping_path)
    served, withheld = withhold(mapping, report.refusals)
    if report.stampable:
        save_stamp(path, report.stamp())
        report.stamp_file = str(path)
        scope = " (read claims only)" if report.read_only else ""
        if report.outcome == "partly-verified":
            scope += " (partly verified: written for the proven part)"
        print(f"stamp: {path}{scope}", file=sys.stderr)
        for line in withheld.describe():
            print(f"  withheld: {line}", file=sys.stderr)
        return
    if report.partly_stampable and served.entities:
        # The proven part is served; the refused claims are named where they are withheld.
        save_stamp(path, report.stamp())
        report.stamp_file = str(path)
        print(f"stamp: {path} (partly verified: written for the proven part)", file=sys.stderr)
        for line in withheld.describe():
            print(f"  withheld: {line}", file=sys.stderr)
    elif report.outcome == "refused" and not report.only and remove_stamp(path):
        # A stamp that the upstream no longer bears out must not let the runtime serve.
        print(f"stamp: removed {path}: the mapping no longer verifies", file=sys.stderr)
    else:
        why = "--only covers part of the mapping" if report.only else report.outcome
        print(f"stamp: not written ({why})", file=sys.stderr)


def _corrected(mapping_path: Path, report: Report, target: Path) -> None:
    fixes = [c for r in report.failures if r.failure for c in r.failure.corrections]
    # What the run learned where the mapping said nothing is recorded too.
    learned = [c for x in report.learned for c in x.corrections]
    text, missed = corrected_text(mapping_path.read_text(encoding="utf-8"), fixes + learned)
    target.write_text(text, encoding="utf-8")
    applied = len(fixes) + len(learned) - len(missed)
    print(f"corrected copy: {target} ({applied} change(s): {len(fixes)} correction(s) of "
          f"refused claims, {len(learned)} learned)")  # fmt: skip
    for fix in missed:
        print(f"  could not apply: {fix.describe()}")
    _, problems = check_text(text)
    for problem in problems:
        print(f"  the corrected copy needs a hand: {problem.render(str(target))}")
