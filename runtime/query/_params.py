"""The `expand`, `page`, `perPage` and `skipTotal` parameters (reference §1.1, §2.1, §5.2)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from runtime.protocol import ProtocolError

DEFAULT_PAGE = 1
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 1000
MAX_EXPAND_DEPTH = 6

_INTEGER = re.compile(r"[+-]?\d+")
_INT64 = 2**63
_TRUE = frozenset(("1", "t", "T", "TRUE", "true", "True"))
_FALSE = frozenset(("0", "f", "F", "FALSE", "false", "False"))
_SEGMENT = re.compile(r"\w+(?:\(\w+\))?", re.ASCII)


def parse_expand(text: str) -> tuple[tuple[str, ...], ...]:
    """Relation paths to expand, in request order.

    Spaces are removed and outer dots trimmed; segments past the sixth are
    dropped as PocketBase drops them; duplicates go, and a path that prefixes
    another (`a` beside `a.b`) merges into the longer one.
    """
    paths: list[tuple[str, ...]] = []
    for raw in text.replace(" ", "").split(","):
        raw = raw.strip(".")
        if not raw:
            continue
        parts = tuple(raw.split("."))
        bad = next((p for p in parts if not _SEGMENT.fullmatch(p)), None)
        if bad is not None:
            raise ProtocolError(
                "invalid_filter", f"invalid expand segment {bad!r} in {raw!r}", got=text
            )
        parts = parts[:MAX_EXPAND_DEPTH]
        if parts not in paths:
            paths.append(parts)
    return tuple(p for p in paths if not any(q[: len(p)] == p and q != p for q in paths))


@dataclass(frozen=True, slots=True)
class Paging:
    page: int = DEFAULT_PAGE
    per_page: int = DEFAULT_PER_PAGE
    skip_total: bool = False

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


def parse_paging(
    page: str | int | None = None,
    per_page: str | int | None = None,
    skip_total: str | bool | None = None,
) -> Paging:
    """Normalised paging, as PocketBase echoes it.

    A page below 1 becomes 1, a perPage below 1 becomes 30 and one above 1000
    becomes 1000; a value that is not an integer (or, for skipTotal, not a Go
    boolean) is refused. Absent or empty parameters take the defaults.
    """
    skip = _boolean("skipTotal", skip_total)
    number = _integer("page", page)
    size = _integer("perPage", per_page)
    number = DEFAULT_PAGE if number is None or number < 1 else number
    if size is None or size < 1:
        size = DEFAULT_PER_PAGE
    return Paging(number, min(size, MAX_PER_PAGE), skip)


def _integer(name: str, value: str | int | None) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not (
        isinstance(value, int) or (isinstance(value, str) and _INTEGER.fullmatch(value))
    ):
        raise _refuse(name, value, "an integer")
    number = int(value)
    if not -_INT64 <= number < _INT64:
        raise _refuse(name, value, "an integer in the 64-bit range")
    return number


def _boolean(name: str, value: str | bool | None) -> bool:
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise _refuse(name, value, "a boolean (1, t, true, 0, f, false)")


def _refuse(name: str, value: object, expected: str) -> ProtocolError:
    return ProtocolError("invalid_filter", f"{name} must be {expected}; got {value!r}", got=value)
