"""`a2map lint`: offline validation of mapping files."""

from __future__ import annotations

import sys
from pathlib import Path

from runtime.mapping import check_text, content_hash

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
        doc, problems = check_text(text)
        if problems:
            for problem in problems:
                print(problem.render(str(path)))
            noun = "problem" if len(problems) == 1 else "problems"
            print(f"{path}: invalid ({len(problems)} {noun})")
            worst = max(worst, Exit.INVALID)
        else:
            entities = len(doc["entities"])
            operations = len(doc.get("operations", []))
            print(
                f"{path}: ok (app {doc['app']['id']}, {entities} entities, "
                f"{operations} operations, {content_hash(doc)})"
            )
    return worst
