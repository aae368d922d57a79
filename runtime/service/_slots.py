"""When an operation schedule's slots fall: UTC instants, laid out in the app's zone.

`every <n>m` / `every <n>h` (and `hourly`) count real time from the zone's midnight
and start again at the next one, so a day the clock is put forward or back has one
slot fewer or more, never a doubled or lost hour. `daily HH:MM` is a wall-clock time:
where the clock skips it, it lands as late as the skip (fold 0), and where the clock
passes it twice, on the first pass.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

_EVERY = re.compile(r"every ([1-9][0-9]*)([mh])")
_DAILY = re.compile(r"daily ([0-9]{2}):([0-9]{2})")
_DAY = timedelta(days=1)


def zone_named(name: str) -> tzinfo:
    """The zone of `serve.timeZone`; UTC needs no time zone database on the host."""
    return UTC if name == "UTC" else ZoneInfo(name)


def _local(day: date, at: time, zone: tzinfo) -> datetime:
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


def day_slots(when: str, zone: tzinfo, day: date) -> list[datetime]:
    """The slot starts of one local day, in order."""
    daily = _DAILY.fullmatch(when)
    if daily:
        return [_local(day, time(int(daily[1]), int(daily[2])), zone)]
    every = _EVERY.fullmatch("every 1h" if when == "hourly" else when)
    if every is None:
        raise ValueError(f"not a schedule: {when!r}")
    step = timedelta(minutes=int(every[1]) * (60 if every[2] == "h" else 1))
    slot, end = _local(day, time(0), zone), _local(day + _DAY, time(0), zone)
    slots = []
    while slot < end:
        slots.append(slot)
        slot += step
    return slots


def latest_slot(when: str, zone: tzinfo, at: datetime) -> datetime:
    """The last slot that started at or before `at`."""
    day = at.astimezone(zone).date()
    return max(s for d in (day - _DAY, day) for s in day_slots(when, zone, d) if s <= at)


def next_slot(when: str, zone: tzinfo, at: datetime) -> datetime:
    """The first slot that starts after `at`."""
    day = at.astimezone(zone).date()
    return min(s for d in (day, day + _DAY) for s in day_slots(when, zone, d) if s > at)


def slot_name(slot: datetime) -> str:
    """A slot as it is keyed and shown: UTC to the second, `2026-03-29T01:00:00Z`."""
    return slot.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
