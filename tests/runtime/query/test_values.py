"""Value kinds: datetime parsing, day keys, numbers, literal coercion."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from runtime.protocol import ProtocolError
from runtime.query._values import (
    as_boolean,
    as_day,
    as_number,
    coerce_literal,
    instant,
    parse_instant,
    pb_datetime,
)

MIDDAY = instant(datetime(2026, 7, 30, 12, 0, tzinfo=UTC))

INSTANTS = [
    ("2026-07-30 12:00:00.000Z", MIDDAY),
    ("2026-07-30T12:00:00Z", MIDDAY),
    ("2026-07-30T12:00", MIDDAY),
    ("2026-07-30T14:00:00+02:00", MIDDAY),
    ("2026-07-30T14:00:00+0200", MIDDAY),
    ("2026-07-30T07:30:00-04:30", MIDDAY),
    ("2026-07-30 12:00:00.000 Z", MIDDAY),
    ("2026-07-30T12:00:00.0000001Z", MIDDAY),
    ("2026-07-30T12:00:00.25Z", MIDDAY + 250_000),
    ("2026-07-30", MIDDAY - 12 * 3600 * 1_000_000),
    ("2026-02-30", None),
    ("2026-07-30T25:00", None),
    ("20260730", None),
    ("2026-07-30T12", None),
    ("today", None),
]


@pytest.mark.parametrize(("text", "expected"), INSTANTS, ids=[t for t, _ in INSTANTS])
def test_parse_instant(text: str, expected: int | None) -> None:
    assert parse_instant(text) == expected


def test_pb_datetime_formats_like_pocketbase() -> None:
    moment = datetime(2026, 7, 30, 9, 15, 0, 123456, tzinfo=UTC)
    assert pb_datetime(moment) == "2026-07-30 09:15:00.123Z"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2026-07-30", "2026-07-30"), ("2026-02-29", None), ("2026-7-30", None), (20260730, None)],
)
def test_as_day(value: object, expected: str | None) -> None:
    assert as_day(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3),
        (2.5, 2.5),
        (" 5 ", 5.0),
        ("1e3", 1000.0),
        (True, None),
        ("nan", None),
        ("0x10", None),
    ],
)
def test_as_number(value: object, expected: float | None) -> None:
    assert as_number(value) == expected


def test_as_boolean() -> None:
    assert [as_boolean(v) for v in (True, False, "true", "false", 1, "yes")] == [
        True, False, True, False, None, None,
    ]  # fmt: skip


COERCIONS = [
    ("text", 5, "5"),
    ("text", 1.5, "1.5"),
    ("text", True, "true"),
    ("text", "", ""),
    ("text", datetime(2026, 7, 30, tzinfo=UTC), "2026-07-30 00:00:00.000Z"),
    ("number", "7", 7.0),
    ("number", "", None),
    ("boolean", "false", False),
    ("datetime", "2026-07-30T12:00:00Z", MIDDAY),
    ("day", "2026-07-30T23:30:00-01:00", "2026-07-31"),
    ("day", datetime(2026, 7, 30, 23, tzinfo=UTC), "2026-07-30"),
    ("json", "1", (2, "1")),
    ("json", 1, (1, 1)),
    ("json", True, (1, 1)),
    ("json", None, None),
]


@pytest.mark.parametrize(("kind", "value", "expected"), COERCIONS)
def test_coerce_literal(kind: str, value: object, expected: object) -> None:
    assert coerce_literal(kind, value, "f") == expected


@pytest.mark.parametrize(
    ("kind", "value"),
    [("number", "abc"), ("number", True), ("boolean", 1), ("datetime", 5), ("day", "31-12-2026")],
)
def test_coerce_literal_refuses_mistyped_values(kind: str, value: object) -> None:
    with pytest.raises(ProtocolError) as caught:
        coerce_literal(kind, value, "f")
    assert caught.value.code == "invalid_filter" and "(field 'f')" in caught.value.message
