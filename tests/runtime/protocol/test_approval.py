"""Approval keys (§13): RFC 8785 canonical JSON with JavaScript number text, then SHA-256."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

import pytest

from runtime.protocol._approval import approval_key, canonical_json, js_json, js_number_text

ARCHIVE_BOARD = "5bf9fb4565dc262a18f9d14c0f3ce2ff9789b0d76edda8fdcf74248413598f20"


def test_reference_vector() -> None:
    assert approval_key("archive-board", {}) == ARCHIVE_BOARD
    assert approval_key("archive-board", None) == ARCHIVE_BOARD


def test_key_is_the_hash_of_the_canonical_document() -> None:
    args = {"reason": "done", "board": "b1"}
    text = '{"args":{"board":"b1","reason":"done"},"operation":"archive-board"}'
    assert approval_key("archive-board", args) == hashlib.sha256(text.encode()).hexdigest()


def test_key_ignores_key_order_and_binds_every_value() -> None:
    key = approval_key("move", {"a": 1, "b": [1, 2]})
    assert key == approval_key("move", {"b": [1, 2], "a": 1.0})
    assert key != approval_key("move", {"a": 1, "b": [2, 1]})
    assert key != approval_key("move", {"a": "1", "b": [1, 2]})
    assert key != approval_key("move-all", {"a": 1, "b": [1, 2]})
    assert len(key) == 64 and key == key.lower()


@dataclass(frozen=True)
class Number:
    value: float
    text: str


NUMBERS = [
    Number(0, "0"),
    Number(-0.0, "0"),
    Number(1.0, "1"),
    Number(-7, "-7"),
    Number(1.5, "1.5"),
    Number(0.1 + 0.2, "0.30000000000000004"),
    Number(1e-6, "0.000001"),
    Number(1e-7, "1e-7"),
    Number(1.5e-10, "1.5e-10"),
    Number(1e20, "100000000000000000000"),
    Number(1e21, "1e+21"),
    Number(1.2345e25, "1.2345e+25"),
    Number(123456789.125, "123456789.125"),
    Number(5e-324, "5e-324"),
    Number(1.7976931348623157e308, "1.7976931348623157e+308"),
    Number(2**53, "9007199254740992"),
    Number(2**60, "1152921504606847000"),
    Number(12345678901234567890, "12345678901234567000"),
    Number(10**400, "Infinity"),
    Number(math.inf, "Infinity"),
    Number(-math.inf, "-Infinity"),
    Number(math.nan, "NaN"),
]


@pytest.mark.parametrize("case", NUMBERS, ids=lambda case: case.text)
def test_number_text_is_javascript(case: Number) -> None:
    assert js_number_text(case.value) == case.text


@dataclass(frozen=True)
class Canon:
    why: str
    value: Any
    canonical: str
    stringified: str  # what JSON.stringify writes: insertion order kept


CANON = [
    Canon("nested keys sorted", {"b": {"d": 1, "c": 2}, "a": []},
          '{"a":[],"b":{"c":2,"d":1}}', '{"b":{"d":1,"c":2},"a":[]}'),
    Canon("UTF-16 order, not code point order", {"\ufb01": 3, "\U0001f600": 2, "\u20ac": 1},
          '{"\u20ac":1,"\U0001f600":2,"\ufb01":3}', '{"\ufb01":3,"\U0001f600":2,"\u20ac":1}'),
    Canon("non-ASCII stays literal", ["\u00e9", "\u65e5"],
          '["\u00e9","\u65e5"]', '["\u00e9","\u65e5"]'),
    Canon("short escapes", 'q"b\\n\n\r\t\b\f', r'"q\"b\\n\n\r\t\b\f"', r'"q\"b\\n\n\r\t\b\f"'),
    Canon("other control characters", "\x01\x1f\x7f", '"\\u0001\\u001f\x7f"',
          '"\\u0001\\u001f\x7f"'),
    Canon("a lone surrogate", "a\ud800", '"a\ufffd"', '"a\\ud800"'),
    Canon("a split surrogate pair is one character", "\ud83d\ude00", '"\U0001f600"',
          '"\U0001f600"'),
    Canon("literals and numbers", [None, True, False, 1.0, 2.5, -0.0, 1e-7],
          "[null,true,false,1,2.5,0,1e-7]", "[null,true,false,1,2.5,0,1e-7]"),
    Canon("tuples are arrays", ("a", 1), '["a",1]', '["a",1]'),
]  # fmt: skip


@pytest.mark.parametrize("case", CANON, ids=lambda case: case.why)
def test_json_writers(case: Canon) -> None:
    assert canonical_json(case.value) == case.canonical
    assert js_json(case.value) == case.stringified


def test_non_finite_numbers() -> None:
    assert js_json([math.inf, math.nan]) == "[null,null]"
    with pytest.raises(ValueError):
        canonical_json({"n": math.inf})


def test_only_json_values() -> None:
    with pytest.raises(TypeError):
        canonical_json({"when": object()})
