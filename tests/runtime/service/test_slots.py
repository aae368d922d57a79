"""Schedule slots in the app's zone: `every` counts real time from local midnight, so a
day the clock moves has one hourly slot fewer or more; `daily` keeps its wall-clock time."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from runtime.service import day_slots, latest_slot, next_slot, slot_name

BERLIN = ZoneInfo("Europe/Berlin")
SPRING = date(2026, 3, 29)  # 02:00 CET -> 03:00 CEST
AUTUMN = date(2026, 10, 25)  # 03:00 CEST -> 02:00 CET


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _names(slots: list[datetime]) -> list[str]:
    return [slot_name(s) for s in slots]


def test_every_fifteen_minutes_starts_at_local_midnight() -> None:
    slots = day_slots("every 15m", BERLIN, date(2026, 1, 10))
    assert len(slots) == 96
    assert _names(slots[:2]) == ["2026-01-09T23:00:00Z", "2026-01-09T23:15:00Z"]
    assert slot_name(slots[-1]) == "2026-01-10T22:45:00Z"


def test_hourly_has_23_slots_the_day_the_clock_goes_forward_and_25_when_back() -> None:
    spring = day_slots("hourly", BERLIN, SPRING)
    autumn = day_slots("hourly", BERLIN, AUTUMN)
    assert (len(spring), len(autumn)) == (23, 25)
    # real hours, one apart, across the change
    assert _names(spring[1:4]) == [
        "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z",
    ]  # fmt: skip
    assert [s.astimezone(BERLIN).hour for s in spring[1:4]] == [1, 3, 4]
    assert [s.astimezone(BERLIN).hour for s in autumn[1:5]] == [1, 2, 2, 3]


def test_every_seven_hours_starts_again_at_midnight() -> None:
    slots = day_slots("every 7h", BERLIN, date(2026, 1, 10))
    assert [s.astimezone(BERLIN).strftime("%H:%M") for s in slots] == [
        "00:00", "07:00", "14:00", "21:00",
    ]  # fmt: skip


def test_daily_keeps_its_wall_clock_time_across_the_change() -> None:
    before = day_slots("daily 09:00", BERLIN, date(2026, 3, 28))
    after = day_slots("daily 09:00", BERLIN, SPRING)
    assert _names(before + after) == ["2026-03-28T08:00:00Z", "2026-03-29T07:00:00Z"]


def test_a_daily_time_the_clock_skips_runs_as_late_as_the_skip() -> None:
    (slot,) = day_slots("daily 02:30", BERLIN, SPRING)
    assert slot.astimezone(BERLIN).strftime("%H:%M") == "03:30"


def test_a_daily_time_the_clock_passes_twice_runs_the_first_time() -> None:
    (slot,) = day_slots("daily 02:30", BERLIN, AUTUMN)
    assert slot_name(slot) == "2026-10-25T00:30:00Z"  # 02:30 CEST, not 02:30 CET


def test_latest_and_next_slot_around_an_instant() -> None:
    at = _utc("2026-03-29T01:20:00")  # 03:20 CEST
    assert slot_name(latest_slot("every 15m", BERLIN, at)) == "2026-03-29T01:15:00Z"
    assert slot_name(next_slot("every 15m", BERLIN, at)) == "2026-03-29T01:30:00Z"
    # a slot that starts exactly now has passed; the next one is after it
    on = _utc("2026-03-29T01:15:00")
    assert latest_slot("every 15m", BERLIN, on) == on
    assert slot_name(next_slot("every 15m", BERLIN, on)) == "2026-03-29T01:30:00Z"


def test_a_daily_slot_before_todays_time_is_yesterdays() -> None:
    at = _utc("2026-01-10T06:00:00")  # 07:00 in Berlin
    assert slot_name(latest_slot("daily 09:00", BERLIN, at)) == "2026-01-09T08:00:00Z"
    assert slot_name(next_slot("daily 09:00", BERLIN, at)) == "2026-01-10T08:00:00Z"


def test_utc_is_the_zone_of_a_mapping_that_names_none() -> None:
    utc = ZoneInfo("UTC")
    assert slot_name(latest_slot("daily 09:00", utc, _utc("2026-01-10T10:00:00"))) == (
        "2026-01-10T09:00:00Z"
    )
