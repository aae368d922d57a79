"""Parsing filter and sort text: AST shape, literals, leniencies, syntax errors, limits."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from runtime.protocol import ProtocolError
from runtime.query import (
    And,
    Compare,
    Literal,
    LiteralValue,
    Macro,
    Or,
    Path,
    Random,
    SortKey,
    parse_filter,
    parse_sort,
)

A1 = Compare(Path(("a",)), "=", Literal(1))
B2 = Compare(Path(("b",)), "=", Literal(2))
C3 = Compare(Path(("c",)), "=", Literal(3))


@dataclass(frozen=True)
class Shape:
    text: str
    expected: object


SHAPES = [
    Shape("a = 1", A1),
    Shape("a=1", A1),
    Shape("a = 1 || b = 2 && c = 3", Or((A1, And((B2, C3))))),
    Shape("a = 1 && b = 2 || c = 3", Or((And((A1, B2)), C3))),
    Shape("(a = 1 || b = 2) && c = 3", And((Or((A1, B2)), C3))),
    Shape("((a = 1))", A1),
    Shape("(a=1)(b=2)", And((A1, B2))),
    Shape("a = 1 || b = 2 (c = 3)", Or((A1, B2, C3))),
    Shape("a = 1 // note\n&& b = 2", And((A1, B2))),
    Shape("a\t=\n1", A1),
    Shape("1 = a", Compare(Literal(1), "=", Path(("a",)))),
    Shape("a ?!~ b", Compare(Path(("a",)), "?!~", Path(("b",)))),
    Shape("a.b.c:lower = 1", Compare(Path(("a", "b", "c"), "lower"), "=", Literal(1))),
    Shape("tags:each ?= 1", Compare(Path(("tags",), "each"), "?=", Literal(1))),
    Shape("a = @todayStart", Compare(Path(("a",)), "=", Macro("todayStart"))),
]


@pytest.mark.parametrize("case", SHAPES, ids=[s.text for s in SHAPES])
def test_filter_parses_to_the_expected_tree(case: Shape) -> None:
    assert parse_filter(case.text) == case.expected


@pytest.mark.parametrize("op", ["=", "!=", ">", ">=", "<", "<=", "~", "!~"])
@pytest.mark.parametrize("any_", ["", "?"])
def test_every_operator_and_its_any_form_parses(op: str, any_: str) -> None:
    parsed = parse_filter(f"a {any_}{op} 1")
    assert parsed == Compare(Path(("a",)), any_ + op, Literal(1))
    assert isinstance(parsed, Compare) and parsed.any == bool(any_) and parsed.base_op == op


LITERALS = [
    ('"plain"', "plain"),
    ("'single'", "single"),
    (r"'it\'s'", "it's"),
    (r'"say \"hi\""', 'say "hi"'),
    ("'say \"hi\"'", 'say "hi"'),
    (r'"C:\\tmp"', "C:\\tmp"),
    (r'"a\nb\tc"', "a\nb\tc"),
    (r'"\u00e9\ud83d\ude00"', "é😀"),
    (r'"100\%"', "100\\%"),
    (r'"a\_b"', "a\\_b"),
    ("10", 10),
    ("1.50", 1.5),
    ("-3", -3),
    ("-.5", -0.5),
    ("true", True),
    ("FALSE", False),
    ("Null", None),
]


@pytest.mark.parametrize(("text", "value"), LITERALS, ids=[t for t, _ in LITERALS])
def test_literals_decode(text: str, value: LiteralValue) -> None:
    parsed = parse_filter(f"a = {text}")
    assert isinstance(parsed, Compare) and parsed.right == Literal(value)
    assert type(parsed.right.value) is type(value)


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_blank_filter_is_no_filter(text: str) -> None:
    assert parse_filter(text) is None


@dataclass(frozen=True)
class Bad:
    text: str
    message: str


SYNTAX_ERRORS = [
    Bad("a = 1 & b = 2", "unexpected character '&' at position 7"),
    Bad("a = 1 &&", "unexpected end of filter at position 9"),
    Bad("a = 1 ||| b = 2", "unexpected character '|' at position 9"),
    Bad("a == 1", "unknown operator '==' at position 3"),
    Bad("a =~ 'x'", "unknown operator '=~' at position 3"),
    Bad("a = 1 and b = 2", "unexpected token 'and' at position 7"),
    Bad("(a = 1", "unexpected end of filter at position 7"),
    Bad("a = 1)", "unexpected token ')' at position 6"),
    Bad('a = "x', "unterminated string starting at position 5"),
    Bad("a > .5", "unexpected character '.' at position 5"),
    Bad("a > 1.", "unexpected character '.' at position 6"),
    Bad("a > 10\r\n", "unexpected character '\\r' at position 7"),
    Bad("()", "unexpected token ')' at position 2"),
    Bad("// only a comment", "unexpected end of filter at position 18"),
    Bad("a = (b = 1)", "unexpected token '(' at position 5"),
    Bad("a = 1 b = 2", "unexpected token 'b' at position 7"),
    Bad("a = 'x' {", "unexpected character '{' at position 9"),
    Bad("geoDistance(a, b, 1, 2) < 5", "unsupported function geoDistance() at position 1"),
    Bad("x = strftime('%Y', created)", "unsupported function strftime() at position 5"),
    Bad('@request.auth.id != ""', "@request.auth.id is not available"),
    Bad("@collection.users.name = 1", "@collection.users.name is not available"),
    Bad("created > @NOW", "unknown macro '@NOW' (macros are case-sensitive) at position 11"),
    Bad("@random = 1", "@random is only meaningful in sort"),
    Bad("a:isset = 1", "the :isset modifier applies only to @request fields"),
    Bad("a:upper = 1", "unknown modifier ':upper' in 'a:upper'"),
    Bad("a. = 1", "invalid field path 'a.' at position 1"),
    Bad("a..b = 1", "invalid field path 'a..b'"),
    Bad("a:lower.b = 1", "invalid field path 'a:lower.b'"),
    Bad("#x = 1", "invalid field path '#x'"),
]


@pytest.mark.parametrize("case", SYNTAX_ERRORS, ids=[c.text for c in SYNTAX_ERRORS])
def test_syntax_errors_name_position_and_token(case: Bad) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_filter(case.text)
    assert caught.value.code == "invalid_filter"
    assert case.message in caught.value.message
    assert caught.value.extra == {"got": case.text}


def test_limits_on_length_and_comparisons() -> None:
    assert parse_filter(" || ".join(["a = 1"] * 200)) is not None
    with pytest.raises(ProtocolError, match="more than 200 comparisons"):
        parse_filter(" || ".join(["a = 1"] * 201))
    with pytest.raises(ProtocolError, match="longer than 3500 characters"):
        parse_filter("a = '" + "x" * 3500 + "'")


def test_parse_results_are_cached_by_text() -> None:
    assert parse_filter("a = 1 && b = 2") is parse_filter("a = 1 && b = 2")


def test_tree_prints_back_as_filter_text() -> None:
    text = '(a = 1 || b ?~ "x\\"y") && c.d:lower != null && e > @now'
    expr = parse_filter(text)
    assert str(expr) == '(a = 1 || b ?~ "x\\"y") && c.d:lower != null && e > @now'
    assert parse_filter(str(expr)) == expr


SORTS = [
    ("-created,title", (SortKey(Path(("created",)), True), SortKey(Path(("title",))))),
    (" +a , -b.c ", (SortKey(Path(("a",))), SortKey(Path(("b", "c")), True))),
    ("title:lower", (SortKey(Path(("title",), "lower")),)),
    ("@random", (Random(),)),
    ("-@random,a", (Random(), SortKey(Path(("a",))))),
    ("", ()),
]


@pytest.mark.parametrize(("text", "expected"), SORTS, ids=[t or "empty" for t, _ in SORTS])
def test_sort_parses(text: str, expected: object) -> None:
    assert parse_sort(text) == expected


SORT_ERRORS = [
    Bad("a,", "unexpected end of sort at position 3"),
    Bad("-", "unexpected end of sort at position 2"),
    Bad("a,,b", "unexpected token ',' at position 3"),
    Bad("@rowid", "@rowid is not supported"),
    Bad("@now", "sort by '@now': a sort item must name a field"),
    Bad("true", "a sort item must name a field"),
    Bad("a b", "unexpected token 'b' at position 3"),
    Bad(",".join("abcdefghi"), "sort lists more than 8 fields"),
    Bad("a" * 256, "a sort field is longer than 255 characters"),
    Bad("a:upper", "unknown modifier ':upper'"),
]


@pytest.mark.parametrize("case", SORT_ERRORS, ids=[c.text[:20] for c in SORT_ERRORS])
def test_sort_errors(case: Bad) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_sort(case.text)
    assert caught.value.code == "invalid_filter"
    assert case.message in caught.value.message
