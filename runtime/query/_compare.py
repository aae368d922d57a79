"""Operator semantics for one value (or one pair of values) of a declared kind.

`=` and `!=` treat null and "" as the same blank value and `!=` is
null-safe; ordering and `~` / `!~` are false whenever a side is null
(reference §4.2, §4.4). JSON values keep PocketBase's `IS` semantics instead:
no blank equivalence, and no coercion between a number and a numeric string.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from datetime import datetime
from typing import Any

from runtime.protocol import js_string

from ._like import compile_like, literal_pattern
from ._values import CONVERT, coerce_literal, like_text, pb_datetime

Test = Callable[[Any], bool]
PairTest = Callable[[Any, Any], bool]

ORDER: dict[str, Callable[[Any, Any], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}
FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "!=": "!="}


def value_test(kind: str, op: str, literal: Any, field: str) -> Test:
    """`value <op> literal` for a value of `kind`; `op` carries no `?`."""
    if op in ("~", "!~"):
        return _like_test(kind, op, literal)
    lit = coerce_literal(kind, literal, field)
    conv = CONVERT[kind]
    if op in ("=", "!="):
        if kind == "json":
            equal = _json_equal(lit)
        elif lit is None or lit == "":
            equal = _blank_test(conv)
        else:
            equal = _equal_test(kind, conv, lit)
        return equal if op == "=" else _negate(equal)
    if lit is None:
        return _never
    return _order_test(conv, ORDER[op], lit)


def _equal_test(kind: str, conv: Callable[[Any], Any], lit: Any) -> Test:
    # the common cases skip the converter: a text value that is already a str,
    # a boolean that is already a bool
    if kind == "text":
        return lambda v: v == lit if v.__class__ is str else conv(v) == lit
    if kind == "boolean":
        return lambda v: v is lit or (v.__class__ is not bool and conv(v) is lit)
    return lambda v: conv(v) == lit


def _blank_test(conv: Callable[[Any], Any]) -> Test:
    def blank(v: Any) -> bool:
        c = conv(v)
        return c is None or c == ""

    return blank


def _json_equal(lit: Any) -> Test:
    conv = CONVERT["json"]
    return lambda v: conv(v) == lit


def _order_test(conv: Callable[[Any], Any], order: Callable[[Any, Any], bool], lit: Any) -> Test:
    def test(v: Any) -> bool:
        c = conv(v)
        return c is not None and order(c, lit)

    return test


def _like_test(kind: str, op: str, literal: Any) -> Test:
    if literal is None:
        return _never  # a NULL pattern: both ~ and !~ are false for every row
    match = compile_like(literal_pattern(_pattern_text(literal)))
    want = op == "~"

    def test(v: Any) -> bool:
        if v.__class__ is str:  # text is searched as is, whatever the kind
            return match(v) is want
        text = like_text(kind, v)
        return text is not None and match(text) is want

    return test


def _pattern_text(literal: Any) -> str:
    if isinstance(literal, datetime):
        return pb_datetime(literal)
    return js_string(literal)


def pair_test(kind: str, op: str) -> PairTest:
    """`left <op> right` where both sides are values of `kind` (a field on each side)."""
    if op in ("~", "!~"):
        want = op == "~"

        def like(a: Any, b: Any) -> bool:
            # a field on the right is wrapped in % without escaping (reference §4.3)
            left, right = like_text(kind, a), like_text(kind, b)
            if left is None or right is None:
                return False
            return compile_like("%" + right + "%")(left) is want

        return like
    conv = CONVERT[kind]
    if op in ("=", "!="):
        blank_equal = kind != "json"

        def equal(a: Any, b: Any) -> bool:
            ca, cb = conv(a), conv(b)
            if blank_equal and (ca is None or ca == "") and (cb is None or cb == ""):
                return True
            return bool(ca == cb)

        return equal if op == "=" else lambda a, b: not equal(a, b)
    order = ORDER[op]

    def ordered(a: Any, b: Any) -> bool:
        ca, cb = conv(a), conv(b)
        return ca is not None and cb is not None and order(ca, cb)

    return ordered


def literal_kind(left: Any, right: Any) -> str:
    """The kind two literals compare as: the most specific of the two."""
    values = (left, right)
    if any(isinstance(v, datetime) for v in values):
        return "datetime"
    if any(isinstance(v, bool) for v in values):
        return "boolean"
    if any(isinstance(v, int | float) for v in values):
        return "number"
    return "text"


def _negate(test: Test) -> Test:
    return lambda v: not test(v)


def _never(v: Any) -> bool:
    return False
