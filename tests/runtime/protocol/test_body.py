"""Request bodies read strictly: one JSON object, or `invalid_json` alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from runtime.protocol import ProtocolError, Unrepresentable, parse_body, wire_safe

DEEP = b"[" * 10_000 + b"]" * 10_000


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        (b"", None),
        (b"  \n\t", None),
        (b"{}", {}),
        (b'{"title": "x", "n": 1.5, "k": 12}', {"title": "x", "n": 1.5, "k": 12}),
        ('{"t": "\u00e9\U0001f600"}'.encode(), {"t": "\u00e9\U0001f600"}),
        (b'{"t": "\\ud83d\\ude00"}', {"t": "\U0001f600"}),  # a surrogate pair is one character
        (b'{"a": {"b": [1, {"c": null}]}}', {"a": {"b": [1, {"c": None}]}}),
    ],
)
def test_accepted(raw: bytes, want: Any) -> None:
    assert parse_body(raw) == want


@pytest.mark.parametrize(
    ("raw", "says", "field"),
    [
        (b"{oops", "not JSON", None),
        (b"title=x&done=true", "not JSON", None),  # a form body
        (b'["a"]', "an array", None),
        (b'"text"', "a single value", None),
        (b"12", "a single value", None),
        (b"null", "a single value", None),
        (b'{"t": "\xff\xfe"}', "not UTF-8", None),
        (b"\xef\xbb\xbf{}", "not JSON", None),  # a byte-order mark is not JSON's
        (DEEP, "deeper than 32", None),
        (b'{"a":' * 40 + b"1" + b"}" * 40, "deeper than 32", None),
        (b'{"title": "x", "title": "y"}', "appears twice", "title"),
        (b'{"a": {"k": 1, "k": 2}}', "appears twice", "k"),
        (b'{"\\ud800": 1}', "a key holds", "\\ud800"),
        (b'{"a\\u0000b": 1}', "a key holds", "a\x00b"),
    ],
)
def test_refused_alone(raw: bytes, says: str, field: str | None) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_body(raw)
    error = caught.value
    assert (error.code, error.status) == ("invalid_json", 400)
    assert says in error.message
    assert error.extra.get("field") == field
    assert "violations" not in error.extra  # nothing else is reported about a body not read
    json.dumps(error.body(), ensure_ascii=False, allow_nan=False).encode("utf-8")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "9" * 400])
def test_numbers_json_cannot_carry_parse_as_text_the_guard_refuses(token: str) -> None:
    parsed = parse_body(b'{"n": ' + token.encode() + b"}")
    assert parsed is not None
    assert isinstance(parsed["n"], Unrepresentable) and parsed["n"] == token


def test_wire_safe_renders_every_value_json_can_write() -> None:
    value = {"a": [float("nan"), float("-inf"), Unrepresentable("1e400"), "\ud800x", 1, None]}
    safe = wire_safe(value)
    assert safe == {"a": ["NaN", "-Infinity", "1e400", "\\ud800x", 1, None]}
    json.dumps(safe, ensure_ascii=False, allow_nan=False).encode("utf-8")
