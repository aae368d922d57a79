"""Read-back by value: every requested field compared with the stored one under its type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from runtime.mapping import Field
from runtime.protocol import not_stored_error, read_back, stored_as_sent


def f(name: str, kind: str, **extra: Any) -> Field:
    return Field(name=name, type=kind, source=(name,), **extra)


TITLE = f("title", "string", max=200)
DUE = f("due", "string", max=10, day_key=True)
POSITION = f("position", "number")
PRICE = f("price", "number", decimals=2)
DONE = f("done", "boolean")
WHEN = f("when", "datetime")
WHOLE = f("when", "datetime", normalize=("whole-seconds",))
MILLIS = f("when", "datetime", normalize=("milliseconds",))
PRIORITY = f("priority", "enum", values=("none", "low", "high", 1))
LIST = f("list", "ref", entity="lists")
TAGS = f("tags", "list<ref>", entity="tags")
KINDS = f("kinds", "list<enum>", values=("a", "b"))
META = f("meta", "json")
TRIMMED = f("name", "string", normalize=("trim",))
FOLDED = f("code", "string", normalize=("collapse-spaces", "lowercase"))
UPPER = f("code", "string", normalize=("uppercase",))


@dataclass(frozen=True)
class Same:
    field: Field
    sent: Any
    stored: Any
    same: bool


# fmt: off
CASES = [
    # strings: exactly, unless a normalisation is declared
    Same(TITLE, "Buy milk", "Buy milk", True),
    Same(TITLE, "zq09C created with a long title", "zq09C cr", False),  # truncated
    Same(TITLE, "Buy milk ", "Buy milk", False),  # trimmed, but not declared
    Same(TITLE, "Buy milk", "buy milk", False),
    Same(TITLE, "x", 5, False),
    Same(TRIMMED, "  Buy milk \n", "Buy milk", True),
    Same(TRIMMED, "Buy milk", "Buy milk!", False),
    Same(FOLDED, "  A   B\tC ", "a b c", True),
    Same(UPPER, "ab-1", "AB-1", True),
    Same(DUE, "2027-03-04", "2027-03-04", True),
    Same(DUE, "2027-03-04", "2027-03-05", False),  # an old date kept on update
    # numbers: numerically, JavaScript's Number() on text; rounded where declared
    Same(POSITION, 2.75, 2.75, True),
    Same(POSITION, 2.75, 3.0, False),  # rounded, not declared
    Same(POSITION, 3, 3.0, True),
    Same(POSITION, "12", 12, True),
    Same(POSITION, " 1e3 ", 1000, True),
    Same(POSITION, "0x10", 16, True),
    Same(POSITION, 0.1, "0.1", True),  # decimals rendered as text
    Same(POSITION, 7, True, False),
    Same(POSITION, 10**20, 10**20, True),
    Same(PRICE, 2.675, 2.68, True),
    Same(PRICE, 2.675, 2.67, True),  # binary rounding is within half a unit too
    Same(PRICE, 2.675, 2.7, False),
    Same(PRICE, "19.999", "20.00", True),
    # booleans: the guard lets "true" and "false" through as booleans
    Same(DONE, True, True, True),
    Same(DONE, "false", False, True),
    Same(DONE, True, False, False),
    Same(DONE, True, 1, False),
    # datetimes: as instants; a re-rendered zone is no difference; precision as declared
    Same(WHEN, "2026-07-30T11:15:00+02:00", "2026-07-30T09:15:00Z", True),
    Same(WHEN, "2026-07-30T09:15:00Z", "2026-07-30 09:15:00.000Z", True),
    Same(WHEN, "2026-07-30T09:15", "2026-07-30T09:15:00Z", True),  # no zone reads as UTC
    Same(WHEN, "2026-07-30", "2026-07-30T00:00:00Z", True),
    Same(WHEN, "2026-07-30T09:15:00Z", "2026-07-30T09:16:00Z", False),
    Same(WHEN, "2026-07-30T09:15:00.123Z", "2026-07-30T09:15:00Z", False),
    Same(WHOLE, "2026-07-30T09:15:00.123Z", "2026-07-30T09:15:00Z", True),
    Same(MILLIS, "2026-07-30T09:15:00.123456Z", "2026-07-30T09:15:00.123Z", True),
    Same(MILLIS, "2026-07-30T09:15:00.123456Z", "2026-07-30T09:15:00Z", False),
    Same(WHEN, "2026-07-30T99:99", "2026-07-30T99:99", True),  # no instant: the same text
    # enums by their JavaScript text, refs as ids, lists as sets
    Same(PRIORITY, "high", "high", True),
    Same(PRIORITY, "high", "none", False),  # an ignored enum value
    Same(PRIORITY, 1, "1", True),
    Same(LIST, "list_todo", "list_todo", True),
    Same(LIST, 3, "3", True),
    Same(LIST, "list_todo", "list_doing", False),
    Same(TAGS, ["t1", "t2"], ["t2", "t1"], True),
    Same(TAGS, ["t1", "t2"], ["t1"], False),
    Same(TAGS, ["t1"], "t1", False),
    Same(KINDS, ["a", "b"], ["b", "a"], True),
    Same(META, {"a": [1, "x"]}, {"a": [1.0, "x"]}, True),
    Same(META, {"a": True}, {"a": 1}, False),
    Same(META, [1, 2], [2, 1], False),
    # a blank asks for a clear, and must read back blank
    Same(TITLE, "", None, True),
    Same(TITLE, None, "", True),
    Same(TAGS, None, [], True),
    Same(TITLE, None, "kept", False),
    Same(TITLE, "x", None, False),
    Same(TITLE, "x", "", False),
    Same(DONE, True, None, False),
]
# fmt: on


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.field.name}:{c.sent!r}->{c.stored!r}")
def test_stored_as_sent(case: Same) -> None:
    assert stored_as_sent(case.field, case.sent, case.stored) is case.same


SCHEMA = {
    "title": TITLE,
    "due": DUE,
    "done": DONE,
    "created": f("created", "datetime", read_only=True),
    "secret": f("secret", "string", write_only=True),
}


def test_every_difference_is_reported_with_what_was_sent_and_what_is_stored() -> None:
    body = {"due": "2027-01-01", "title": "x", "done": True, "secret": "pw", "password": "pw"}
    stored = {"title": "x", "due": None, "done": False}
    assert read_back(SCHEMA, body, stored) == [
        {"code": "not_stored", "field": "due", "expected": "2027-01-01", "got": None},
        {"code": "not_stored", "field": "done", "expected": True, "got": False},
    ]


def test_write_only_and_undeclared_keys_are_never_compared() -> None:
    assert read_back(SCHEMA, {"secret": "pw", "password": "x"}, {}) == []


def test_not_stored_error() -> None:
    differences = read_back(SCHEMA, {"title": "long title", "due": "2027-01-01"}, {"title": "lo"})
    error = not_stored_error("cards", "rec_1", differences)
    body = error.body()
    assert error.status == 422
    assert body["code"] == "not_stored" and body["id"] == "rec_1"
    assert body["violations"] == [
        {"code": "not_stored", "field": "title", "expected": "long title", "got": "lo"},
        {"code": "not_stored", "field": "due", "expected": "2027-01-01", "got": None},
    ]
    assert error.message.startswith("Rejected by a2app (not_stored): ")
    assert "title, due" in error.message and "NOT report" in error.message
