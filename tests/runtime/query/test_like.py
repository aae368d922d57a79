"""`~` patterns: PocketBase's wrapping and escaping, SQLite LIKE matching."""

from __future__ import annotations

import pytest

from runtime.query._like import compile_like, literal_pattern

PATTERNS = [
    ("abc", "%abc%"),
    ("ab_c", "%ab\\_c%"),
    ("ab\\c", "%ab\\\\c%"),
    ("ab\\%c", "%ab\\%c%"),
    ("ab\\\\%c", "ab\\\\%c"),
    ("__", "%_\\_%"),
    ("100%", "100%"),
    ("%abc", "%abc"),
    ("", "%%"),
]


@pytest.mark.parametrize(("value", "pattern"), PATTERNS, ids=[v or "empty" for v, _ in PATTERNS])
def test_literal_pattern_matches_pocketbase(value: str, pattern: str) -> None:
    assert literal_pattern(value) == pattern


MATCHES = [
    ("%milk%", "Oat MILK", True),
    ("%milk%", "mil k", False),
    ("%k%", "\u212a", False),  # the Kelvin sign is not an ASCII k
    ("%é%", "É", False),
    ("%É%", "xÉy", True),
    ("a_c%", "abcd", True),
    ("a_c%", "ac", False),
    ("%ab\\_c%", "xab_cx", True),
    ("%ab\\_c%", "abxc", False),
    ("abc", "ABC", True),
    ("abc", "abcd", False),
    ("%a%b%", "xaYb", True),
    ("a\\", "a\\", False),  # a dangling escape never matches
    ("%%", "", True),
    ("%\n%", "line\nbreak", True),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), MATCHES)
def test_like_matching(pattern: str, text: str, expected: bool) -> None:
    assert compile_like(pattern)(text) is expected
