"""The literal renderer: a Python value as a filter literal, read back as that value.

The prober and the verifier used to carry their own renderer (``json.dumps`` of
numbers, text without quotes or backslashes); `render_literal(escapes=False)`
is that renderer, with two differences pinned below: a float the grammar
cannot spell (an exponent, NaN, infinity) is refused instead of written in a
form `parse_filter` rejects or reads as a field name.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from runtime.protocol import ProtocolError
from runtime.query import Compare, Literal, parse_filter, render_literal

PLUS_TWO = timezone(timedelta(hours=2))
SCENARIOS: list[tuple[str, Any, str | None]] = [
    ("null", None, "null"),
    ("true", True, "true"),
    ("false", False, "false"),
    ("an integer", 5, "5"),
    ("a negative integer", -12, "-12"),
    ("an integer past double precision", 2**60, "1152921504606846976"),
    ("a float", 1.5, "1.5"),
    ("a whole float keeps its point", 5.0, "5.0"),
    ("a negative float", -0.25, "-0.25"),
    ("an exponent has no spelling", 1e20, None),
    ("a small exponent has no spelling", 1e-7, None),
    ("NaN", float("nan"), None),
    ("infinity", float("inf"), None),
    ("text", "hello", '"hello"'),
    ("empty text", "", '""'),
    ("text that reads as a number", "5", '"5"'),
    ("text that reads as a keyword", "null", '"null"'),
    ("non-ASCII text stays as written", "café ☕", '"café ☕"'),
    ("a double quote is escaped", 'say "hi"', '"say \\"hi\\""'),
    ("a backslash is escaped", "a\\b", '"a\\\\b"'),
    ("a newline is escaped", "a\nb", '"a\\nb"'),
    ("a tab is escaped", "a\tb", '"a\\tb"'),
    ("a control character has no spelling upstream", "a\x01b", None),
    ("a form feed has no spelling upstream", "a\x0cb", None),
    ("an instant in UTC", datetime(2026, 12, 1, tzinfo=UTC), '"2026-12-01 00:00:00.000Z"'),
    ("milliseconds are kept", datetime(2026, 12, 1, 9, 15, 0, 250000, tzinfo=UTC),
     '"2026-12-01 09:15:00.250Z"'),
    ("another zone is written in UTC", datetime(2026, 3, 1, 5, 18, tzinfo=PLUS_TWO),
     '"2026-03-01 03:18:00.000Z"'),
    ("a zoneless datetime is UTC", datetime(2026, 12, 1, 10, 0), '"2026-12-01 10:00:00.000Z"'),
    ("microseconds would name another instant", datetime(2026, 12, 1, 0, 0, 0, 1, tzinfo=UTC),
     None),
    ("a list has no literal", ["a"], None),
    ("an object has no literal", {"a": 1}, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("value", "text"), [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS]
)
def test_render_literal(value: Any, text: str | None) -> None:
    assert render_literal(value) == text


def _read_back(text: str) -> Any:
    expr = parse_filter(f"x = {text}")
    assert isinstance(expr, Compare) and isinstance(expr.right, Literal)
    return expr.right.value


@pytest.mark.parametrize(
    "value", [s[1] for s in SCENARIOS if s[2] is not None], ids=[s[0] for s in SCENARIOS if s[2]]
)
def test_every_literal_reads_back_as_its_value(value: Any) -> None:
    text = render_literal(value)
    assert text is not None
    read = _read_back(text)
    if isinstance(value, datetime):
        assert read == json.loads(text)
    else:
        assert read == value and type(read) is type(value)


def test_it_agrees_with_how_the_tree_prints_a_literal() -> None:
    for value in (None, True, 7, 2.5, "text", 'say "hi"', "a\\b\n"):
        assert render_literal(value) == str(Literal(value))


PLAIN: list[tuple[str, Any, str | None]] = [
    ("text", "hello", '"hello"'),
    ("a number", 3, "3"),
    ("a boolean", True, "true"),
    ("a double quote", 'say "hi"', None),
    ("a backslash", "a\\b", None),
    ("a newline", "a\nb", None),
    ("a no-break space prints blank", "a\xa0b", None),
    ("non-ASCII letters are fine", "café", '"café"'),
]


@pytest.mark.parametrize(("value", "text"), [s[1:] for s in PLAIN], ids=[s[0] for s in PLAIN])
def test_without_escapes_text_needing_one_is_refused(value: Any, text: str | None) -> None:
    assert render_literal(value, escapes=False) == text


def _copied(value: Any) -> str | None:
    """The renderer the prober and the verifier each carried before sharing this one."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, str) and value.isprintable() and '"' not in value and "\\" not in value:
        return json.dumps(value, ensure_ascii=False)
    return None


SAME = [True, False, 0, -3, 2**70, 0.5, -1.25, 5.0, 123456.789, "word", "", "café", "a b", "x'y",
        'a"b', "a\\b", "a\nb", "a\xa0b", "a\x01b", [1], {"a": 1}]  # fmt: skip


@pytest.mark.parametrize("value", SAME, ids=repr)
def test_without_escapes_it_is_the_renderer_the_prober_and_verifier_copied(value: Any) -> None:
    assert render_literal(value, escapes=False) == _copied(value)


@pytest.mark.parametrize(
    ("value", "copied"),
    [(1e20, "1e+20"), (1e-7, "1e-07"), (float("nan"), "NaN"), (float("inf"), "Infinity")],
    ids=["exponent", "small exponent", "NaN", "infinity"],
)
def test_a_float_the_grammar_cannot_spell_is_refused_where_the_copy_was_unreadable(
    value: float, copied: str
) -> None:
    assert _copied(value) == copied
    assert render_literal(value, escapes=False) is None
    try:
        expr = parse_filter(f"x = {copied}")
    except ProtocolError:
        return  # the grammar has no exponent
    assert isinstance(expr, Compare) and not isinstance(expr.right, Literal)  # NaN is a field name
