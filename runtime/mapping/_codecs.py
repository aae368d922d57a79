"""Value codecs: how a field's value is spelled on the wire when it is not the protocol's.

A field declares ``codec:`` when the upstream stores a protocol type in another form:

    epoch-seconds   datetime <-> integer seconds since 1970 (Stripe's ``created``)
    epoch-ms        datetime <-> integer milliseconds since 1970
    decimal-string  number   <-> decimal text (``"1.50"``, DRF's DecimalField)
    int-bool        boolean  <-> 0 / 1 (SQLite's booleans behind Directus)

`decode` runs on what the upstream answers, `encode` on what the runtime sends
(write bodies and filter values pushed down). Both are pure and total: a value
the codec does not recognise passes through unchanged, so the guard and the
verifier still see it as it is and say what is wrong, instead of a crash here.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any, Literal

Codec = Literal["epoch-seconds", "epoch-ms", "decimal-string", "int-bool"]
# Each codec and the one protocol type it serves.
CODEC_TYPES: dict[str, str] = {
    "epoch-seconds": "datetime",
    "epoch-ms": "datetime",
    "decimal-string": "number",
    "int-bool": "boolean",
}
CODECS: tuple[str, ...] = tuple(CODEC_TYPES)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_INTEGER = re.compile(r"-?\d+")
_DECIMAL = re.compile(r"-?\d+(\.\d+)?")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _epoch_to_text(value: Any, per_second: int) -> Any:
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        value = int(value.strip())
    if not _is_int(value):
        return value
    try:
        moment = _EPOCH + dt.timedelta(milliseconds=value * (1000 // per_second))
    except OverflowError:
        return value
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if per_second == 1000:
        text += f".{moment.microsecond // 1000:03d}"
    return text + "Z"


def _parse_moment(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) == 10:
        text += "T00:00:00"
    try:
        moment = dt.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)  # the protocol reads a bare time as UTC
    return moment


def _text_to_epoch(value: Any, per_second: int) -> Any:
    moment = _parse_moment(value)
    if moment is None:
        return value
    delta = moment - _EPOCH
    # Whole units, rounded down: the upstream keeps no finer time than its unit.
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return micros // (1_000_000 // per_second)


def _decimal_to_number(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    if _INTEGER.fullmatch(text):
        return int(text)  # exact, where a float would round large integers
    if not _DECIMAL.fullmatch(text):
        return value
    number = float(text)
    return int(number) if number.is_integer() else number


def _number_to_decimal(value: Any) -> Any:
    if _is_int(value):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else repr(value)
    return value


def _int_to_bool(value: Any) -> Any:
    if value in (0, 1) and not isinstance(value, bool):
        return bool(value)
    if value in ("0", "1"):
        return value == "1"
    return value


def _bool_to_int(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value


_DECODE: dict[str, Callable[[Any], Any]] = {
    "epoch-seconds": lambda v: _epoch_to_text(v, 1),
    "epoch-ms": lambda v: _epoch_to_text(v, 1000),
    "decimal-string": _decimal_to_number,
    "int-bool": _int_to_bool,
}
_ENCODE: dict[str, Callable[[Any], Any]] = {
    "epoch-seconds": lambda v: _text_to_epoch(v, 1),
    "epoch-ms": lambda v: _text_to_epoch(v, 1000),
    "decimal-string": _number_to_decimal,
    "int-bool": _bool_to_int,
}


def decode(codec: str | None, value: Any) -> Any:
    """The wire's value in the protocol's type (None stays None)."""
    if codec is None or value is None:
        return value
    return _DECODE[codec](value)


def encode(codec: str | None, value: Any) -> Any:
    """The protocol's value as the wire spells it (None stays None)."""
    if codec is None or value is None:
        return value
    return _ENCODE[codec](value)
