"""`a2map lint`: offline validation of mapping files."""

from __future__ import annotations

import sys
from pathlib import Path

from runtime.mapping import Mapping, MappingError, load_mapping_text

from ._exits import Exit


def lint_files(paths: list[Path]) -> int:
    """Print every problem of every file; 0 all valid, 1 any invalid, 2 unreadable."""
    worst = Exit.OK
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{path}: cannot read: {exc.__class__.__name__}: {exc}", file=sys.stderr)
            worst = Exit.USAGE
            continue
        try:
            mapping = load_mapping_text(text, filename=str(path), resolve_env=False)
            _check_triggers(mapping, str(path))
        except MappingError as exc:
            for problem in exc.problems:
                print(problem.render(str(path)))
            noun = "problem" if len(exc.problems) == 1 else "problems"
            print(f"{path}: invalid ({len(exc.problems)} {noun})")
            worst = max(worst, Exit.INVALID)
            continue
        print(
            f"{path}: ok (app {mapping.app.id}, {len(mapping.entities)} entities, "
            f"{len(mapping.operations)} operations, {mapping.content_hash})"
        )
    return worst


def _check_triggers(mapping: Mapping, filename: str) -> None:
    """Trigger filters are checked by the runtime's own grammar, as serving checks them."""
    from runtime.service import trigger_problems

    problems = trigger_problems(mapping)
    if problems:
        raise MappingError(problems, filename)
