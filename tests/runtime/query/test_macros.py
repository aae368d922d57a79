"""Datetime and number macros from one UTC instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from runtime.query import MACROS
from runtime.query._macros import macro_values


def test_every_listed_macro_has_a_value() -> None:
    assert set(macro_values(datetime(2026, 1, 1, tzinfo=UTC))) == set(MACROS)


def test_macro_values() -> None:
    now = datetime(2024, 2, 10, 15, 4, 5, 678901, tzinfo=UTC)  # a Saturday, in a leap year
    values = macro_values(now)
    ms = now.replace(microsecond=678000)
    assert values["now"] == ms
    assert values["yesterday"] == ms - timedelta(hours=24)
    assert values["tomorrow"] == ms + timedelta(hours=24)
    assert values["todayStart"] == datetime(2024, 2, 10, tzinfo=UTC)
    assert values["todayEnd"] == datetime(2024, 2, 10, 23, 59, 59, 999000, tzinfo=UTC)
    assert values["monthStart"] == datetime(2024, 2, 1, tzinfo=UTC)
    assert values["monthEnd"] == datetime(2024, 2, 29, 23, 59, 59, 999000, tzinfo=UTC)
    assert values["yearStart"] == datetime(2024, 1, 1, tzinfo=UTC)
    assert values["yearEnd"] == datetime(2024, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
    numbers = {k: values[k] for k in ("second", "minute", "hour", "day", "month", "year")}
    assert numbers == {"second": 5, "minute": 4, "hour": 15, "day": 10, "month": 2, "year": 2024}
    assert values["weekday"] == 6


def test_macros_are_computed_in_utc() -> None:
    local = datetime(2026, 1, 1, 1, 30, tzinfo=timezone(timedelta(hours=3)))  # 2025-12-31 22:30Z
    values = macro_values(local)
    assert values["year"] == 2025 and values["weekday"] == 3
    assert values["todayStart"] == datetime(2025, 12, 31, tzinfo=UTC)
    assert macro_values(datetime(2026, 1, 1))["todayStart"] == datetime(2026, 1, 1, tzinfo=UTC)
