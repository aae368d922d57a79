"""`~` as PocketBase runs it: SQLite `LIKE … ESCAPE '\\'`, case-insensitive for ASCII only.

A literal without an unescaped `%` is escaped and wrapped as `%value%`
("contains"); with one, it is a raw LIKE pattern where `_` matches one
character. The escaping reproduces PocketBase's own routine, quirks included
(`__` becomes `_\\_`: only the second of two adjacent specials is escaped).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

Matcher = Callable[[str], bool]


def literal_pattern(value: str) -> str:
    """The LIKE pattern PocketBase binds for a literal right-hand side."""
    if _contains_unescaped(value, "%"):
        return value
    return "%" + _escape_unescaped(value, "\\%_") + "%"


def _contains_unescaped(text: str, char: str) -> bool:
    prev = ""
    for c in text:
        if c == char and prev != "\\":
            return True
        # an escaped backslash does not escape what follows it
        prev = "" if c == "\\" and prev == "\\" else c
    return False


def _escape_unescaped(text: str, specials: str) -> str:
    out: list[str] = []
    match = False
    for i in range(len(text) - 1, -1, -1):
        c = text[i]
        if match:
            if c != "\\":
                out.append("\\")
            match = False
        else:
            match = c in specials
        out.append(c)
        if i == 0 and match:
            out.append("\\")
    return "".join(reversed(out))


@functools.lru_cache(maxsize=4096)
def compile_like(pattern: str) -> Matcher:
    """A predicate over text for one LIKE pattern."""
    pieces: list[str] = []
    literal: list[str] = []
    wildcards = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 == len(pattern):
                return _never  # SQLite: a dangling escape matches nothing
            literal.append(pattern[i + 1])
            pieces.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "%":
            pieces.append(".*")
            wildcards += 1
        elif c == "_":
            pieces.append(".")
            wildcards += 1
        else:
            literal.append(c)
            pieces.append(re.escape(c))
        i += 1
    regex = re.compile("".join(pieces), re.ASCII | re.IGNORECASE | re.DOTALL)
    needle = "".join(literal)
    contains = wildcards == 2 and len(pieces) >= 2 and pieces[0] == pieces[-1] == ".*"
    if contains and needle.isascii():
        return _contains(needle.lower(), regex)
    return lambda text: regex.fullmatch(text) is not None


def _contains(needle: str, regex: re.Pattern[str]) -> Matcher:
    def match(text: str) -> bool:
        # str.lower() folds non-ASCII letters too (the Kelvin sign becomes "k"),
        # so the shortcut is only exact on ASCII text
        if text.isascii():
            return needle in text.lower()
        return regex.fullmatch(text) is not None

    return match


def _never(text: str) -> bool:
    return False
