"""`a2map lint`: offline validation of mapping files."""

from __future__ import annotations

import sys
from pathlib import Path

from runtime.mapping import (
    Feed,
    Mapping,
    MappingError,
    feed_requests_per_minute,
    load_mapping_text,
)

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
        if mapping.serve.feed is not None:
            print(f"{path}: {_feed_line(mapping.serve.feed)}")
            for line in _feed_proofs(mapping, mapping.serve.feed):
                print(f"{path}: {line}")
    return worst


def _feed_line(feed: Feed) -> str:
    """What the feed will cost: the owner sets the budget against the upstream's limits."""
    least = feed_requests_per_minute(len(feed.entities), feed.interval)
    return (
        f"feed of {', '.join(feed.entities)} every {feed.interval} s, at most {feed.budget} "
        f"upstream requests per minute (a first page of each needs {least})"
    )


def _feed_proofs(mapping: Mapping, feed: Feed) -> list[str]:
    """What `a2map verify` must prove before the feed reads an entity newest first."""
    from mapper.verify import feed_candidates

    lines = []
    for name in feed.entities:
        entity = mapping.entities.get(name)
        if entity is None:
            continue
        found = feed_candidates(entity)
        if not found or entity.write.update is None:
            why = "no datetime field it sorts by" if not found else "no update to prove one by"
            lines.append(f"feed of {name}: complete walks ({why})")
            continue
        lines.append(
            f"feed of {name}: newest first only once `a2map verify` proves, by updating a "
            f"record of its own, that one of {', '.join(found)} moves forward on every update "
            "and sorts that record first; else complete walks (and served unverified, always)"
        )
    if feed.entities:
        lines.append(
            "feed: a complete walk is skipped while the listing answers 304 to its ETag, "
            "only where `a2map verify` proved the ETag follows every change"
        )
    return lines


def _check_triggers(mapping: Mapping, filename: str) -> None:
    """Trigger filters are checked by the runtime's own grammar, as serving checks them."""
    from runtime.service import trigger_problems

    problems = trigger_problems(mapping)
    if problems:
        raise MappingError(problems, filename)
