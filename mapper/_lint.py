"""`a2map lint`: offline validation of mapping files."""

from __future__ import annotations

import sys
from pathlib import Path

from runtime.mapping import MappingError, load_mapping_text

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def lint_files(paths: list[Path]) -> int:
    """Print every problem of every file; 0 all valid, 1 any invalid, 2 unreadable."""
    worst = EXIT_OK
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{path}: cannot read: {exc.__class__.__name__}: {exc}", file=sys.stderr)
            worst = EXIT_USAGE
            continue
        try:
            mapping = load_mapping_text(text, filename=str(path), resolve_env=False)
        except MappingError as exc:
            for problem in exc.problems:
                print(problem.render(str(path)))
            noun = "problem" if len(exc.problems) == 1 else "problems"
            print(f"{path}: invalid ({len(exc.problems)} {noun})")
            worst = max(worst, EXIT_INVALID)
            continue
        print(
            f"{path}: ok (app {mapping.app.id}, {len(mapping.entities)} entities, "
            f"{len(mapping.operations)} operations, {mapping.content_hash})"
        )
    return worst
