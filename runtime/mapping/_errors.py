"""Mapping problems: every violation at once, each with a path a reviewer can find."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PathPart = str | int


def render_path(parts: Sequence[PathPart]) -> str:
    """`entities.cards.fields.due.type`, `modules[0].name`; `(root)` for the document."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(root)"


def did_you_mean(word: object, candidates: Iterable[object]) -> str:
    """A ` did you mean 'x'?` suffix, or nothing when no candidate is close."""
    if not isinstance(word, str):
        return ""
    names = [str(c) for c in candidates]
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    if not close and len(word) >= 3:
        close = [n for n in names if n.startswith(word)][:1]
    if not close:
        lowered = {n.lower(): n for n in names}
        if word.lower() in lowered:
            close = [lowered[word.lower()]]
    return f"; did you mean '{close[0]}'?" if close else ""


def allowed(values: Iterable[object]) -> str:
    return ", ".join(repr(v) if not isinstance(v, str) else v for v in values)


# Stable codes a script can branch on, rendered before the message as the `unmapped:`
# reasons are ("<path>: <code>: <message>"); a problem without one reads as prose only.
CODES: dict[str, str] = {
    "path-fragment": "an upstream path holds '#', a fragment no request can carry",
    "path-absolute": "an upstream path names a host ('//' first, or '://'), which the "
    "runtime refuses as outside the upstream",
    "path-placeholder": "an upstream path holds a {placeholder} the runtime does not fill there",
    "path-query-detail": "an entity path holds a query and no detailPath: the default record "
    "path would put the id inside the query",
}


@dataclass(frozen=True, slots=True)
class Problem:
    path: tuple[PathPart, ...]
    message: str
    line: int | None = None
    code: str | None = None

    def __post_init__(self) -> None:
        if self.code is not None and self.code not in CODES:
            raise ValueError(f"unregistered problem code {self.code!r}")

    def render(self, filename: str | None = None) -> str:
        where = filename or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        prefix = f"{where}: " if where else ""
        code = f"{self.code}: " if self.code else ""
        return f"{prefix}{render_path(self.path)}: {code}{self.message}"


class MappingError(Exception):
    """A mapping file that cannot be used, with every problem found in it."""

    def __init__(self, problems: Sequence[Problem], filename: str | None = None) -> None:
        self.problems = tuple(problems)
        self.filename = filename
        super().__init__(self.render())

    def render(self) -> str:
        lines = [p.render(self.filename) for p in self.problems]
        return "\n".join(lines)
