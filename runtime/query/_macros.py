"""Datetime and number macros, all computed in UTC from one instant per query."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta

MacroValue = datetime | int


def macro_values(now: datetime) -> dict[str, MacroValue]:
    """Every macro's value at `now` (naive means UTC), at PocketBase's millisecond precision."""
    now = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    end = start.replace(hour=23, minute=59, second=59, microsecond=999_000)
    last_day = calendar.monthrange(now.year, now.month)[1]
    return {
        "now": now,
        "yesterday": now - timedelta(hours=24),
        "tomorrow": now + timedelta(hours=24),
        "todayStart": start,
        "todayEnd": end,
        "monthStart": start.replace(day=1),
        "monthEnd": end.replace(day=last_day),
        "yearStart": start.replace(month=1, day=1),
        "yearEnd": end.replace(month=12, day=31),
        "second": now.second,
        "minute": now.minute,
        "hour": now.hour,
        "day": now.day,
        "month": now.month,
        "year": now.year,
        "weekday": (now.weekday() + 1) % 7,  # PocketBase counts from Sunday = 0
    }
