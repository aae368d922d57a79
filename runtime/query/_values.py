"""Value kinds: how a record value or a literal becomes comparable for a declared type.

Every converter maps "not a value of this kind" to None, which comparisons
treat as SQL NULL: never ordered, never LIKE-matched, blank for `=` / `!=`.
Instants are integer microseconds since the epoch (UTC), so comparing two is
one integer comparison.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any, Literal

from runtime.protocol import ProtocolError, js_string

Kind = Literal["text", "number", "boolean", "datetime", "day", "json"]

_NUMERIC = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*")
_DATE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?"
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def as_text(value: Any) -> str | None:
    if value is None or value.__class__ is str:
        return value
    return js_string(value)


def as_number(value: Any) -> int | float | None:
    cls = value.__class__
    if cls is int or cls is float:
        return None if value != value else value  # NaN is no number
    if cls is str and _NUMERIC.fullmatch(value):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def as_boolean(value: Any) -> bool | None:
    if value is True or value is False:
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    return None


def as_instant(value: Any) -> int | None:
    if value.__class__ is str:
        return parse_instant(value)
    if isinstance(value, datetime):
        return instant(value)
    return None


def as_day(value: Any) -> str | None:
    if value.__class__ is str and len(value) == 10:
        return value if _valid_day(value) else None
    return None


def as_json(value: Any) -> tuple[int, Any] | None:
    """SQLite's ordering of what `json_extract` yields: numbers (and booleans) before text."""
    if value is None:
        return None
    if value is True or value is False or isinstance(value, int | float):
        return (1, int(value) if isinstance(value, bool) else value)
    if isinstance(value, str):
        return (2, value)
    return (2, compact(value))


CONVERT: dict[str, Callable[[Any], Any]] = {
    "text": as_text,
    "number": as_number,
    "boolean": as_boolean,
    "datetime": as_instant,
    "day": as_day,
    "json": as_json,
}


def like_text(kind: str, value: Any) -> str | None:
    """The text `~` searches: the value as stored, JSON as `json_extract` renders it."""
    if kind != "json" or value is None:
        return as_text(value)
    if value is True or value is False:
        return "1" if value else "0"
    if isinstance(value, dict | list):
        return compact(value)
    return as_text(value)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=65536)
def parse_instant(text: str) -> int | None:
    """ISO 8601 with or without zone, `T` or space, PocketBase's `… 09:15:00.000Z` too."""
    match = _DATE.fullmatch(text)
    if match is None:
        return None
    y, mo, d, h, mi, s, frac, zone = match.groups()
    tz = UTC
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        tz = timezone(-offset if zone[0] == "-" else offset)
    try:
        moment = datetime(
            int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
            int((frac or "0")[:6].ljust(6, "0")), tzinfo=tz,
        )  # fmt: skip
    except ValueError:
        return None
    return instant(moment)


def instant(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MICROSECOND


def pb_datetime(moment: datetime) -> str:
    """PocketBase's stored form: `2026-07-30 09:15:00.000Z`."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@functools.lru_cache(maxsize=4096)
def _valid_day(text: str) -> bool:
    if not _DAY.fullmatch(text):
        return False
    try:
        date(int(text[:4]), int(text[5:7]), int(text[8:]))
    except ValueError:
        return False
    return True


def coerce_literal(kind: str, value: Any, field: str) -> Any:
    """A literal (or resolved macro) as a comparable of `kind`; None when blank.

    Text keeps `""` distinct from null because `title > ""` is a real text
    comparison; every other kind has no empty value besides null.
    """
    if value is None:
        return None
    if kind == "json":
        return as_json(pb_datetime(value) if isinstance(value, datetime) else value)
    if kind == "text":
        return pb_datetime(value) if isinstance(value, datetime) else as_text(value)
    if value == "" and isinstance(value, str):
        return None
    converted = _coerce(kind, value)
    if converted is None:
        raise ProtocolError(
            "invalid_filter", f"{_show(value)} is not {_EXPECTED[kind]} (field {field!r})"
        )
    return converted


_EXPECTED = {
    "number": "a number",
    "boolean": "true or false",
    "datetime": "a date or datetime",
    "day": 'a day key "YYYY-MM-DD" or a datetime',
}


def _coerce(kind: str, value: Any) -> Any:
    if isinstance(value, bool) and kind != "boolean":
        return None
    if kind == "number":
        return None if isinstance(value, datetime) else as_number(value)
    if kind == "boolean":
        return as_boolean(value)
    if kind == "datetime":
        return as_instant(value)
    # day keys compare as dates, so a datetime literal counts by its UTC date
    if isinstance(value, datetime):
        return value.astimezone(UTC).date().isoformat()
    if isinstance(value, str):
        day = as_day(value)
        if day is not None:
            return day
        micros = parse_instant(value)
        if micros is not None:
            return (_EPOCH + micros * _MICROSECOND).date().isoformat()
    return None


def _show(value: Any) -> str:
    if isinstance(value, datetime):
        return pb_datetime(value)
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else as_text(value) or ""
