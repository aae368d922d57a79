"""Read-back by value (§11, made strict): was every requested value stored as sent?

The reference only refuses "asked for something, stored nothing", which suits a
backend whose own guard is the runtime's. A foreign app truncates, rounds,
ignores and defaults behind a 200, so here every requested field is compared
with the stored record under its declared type. The only differences allowed are
the normalisations a field declares (and `a2map verify` proved): whitespace,
case, decimal places, sub-second precision. Datetimes compare as instants, so a
re-rendered time zone is never a difference.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from runtime.mapping import Field

from ._body import wire_safe
from ._errors import ProtocolError
from ._guard import is_blank, is_numeric_text, js_text

_INSTANT = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?",
    re.ASCII | re.IGNORECASE,
)


def _js_number(value: Any) -> float | int | None:
    """`Number(value)` for what the guard let through: numbers and numeric text."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return value
    if not isinstance(value, str) or not is_numeric_text(value):
        return None
    text = value.strip()
    prefix = text[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        return int(text, {"0x": 16, "0o": 8, "0b": 2}[prefix])
    try:
        return int(text) if re.fullmatch(r"[+-]?\d+", text, re.ASCII) else float(text)
    except ValueError:
        return None


def _same_number(field: Field, sent: Any, stored: Any) -> bool:
    want, got = _js_number(sent), _js_number(stored)
    if want is None or got is None or not math.isfinite(got):
        return False
    if field.decimals is None:
        return want == got
    # Rounding rules differ between upstreams (half-up, half-even, binary floats):
    # any value within half a unit of the last kept place is the rounded one.
    unit = 10.0**-field.decimals
    return abs(float(want) - float(got)) <= unit / 2 * (1 + 1e-9)


def instant(value: Any, *, precision: str | None = None) -> dt.datetime | None:
    """An ISO date or datetime as an aware instant (no zone reads as UTC), or None."""
    if not isinstance(value, str):
        return None
    match = _INSTANT.fullmatch(value.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    if precision == "whole-seconds":
        micro = 0
    elif precision == "milliseconds":
        micro -= micro % 1000
    try:
        moment = dt.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0),
            int(second or 0), micro, tzinfo=dt.UTC,
        )  # fmt: skip
    except ValueError:
        return None
    if zone and zone.upper() != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        moment -= sign * offset
    return moment


def _same_instant(field: Field, sent: Any, stored: Any) -> bool:
    precision = next((n for n in field.normalize if n in ("whole-seconds", "milliseconds")), None)
    want = instant(sent, precision=precision)
    got = instant(stored, precision=precision)
    if want is None:
        return bool(sent == stored)  # not a date the parser knows: only the same text will do
    return got is not None and want == got


def _normalized_text(field: Field, text: str) -> str:
    for rule in field.normalize:
        if rule == "trim":
            text = text.strip()
        elif rule == "collapse-spaces":
            text = " ".join(text.split())
        elif rule == "lowercase":
            text = text.lower()
        elif rule == "uppercase":
            text = text.upper()
    return text


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(value) if isinstance(value, str) else None


def json_equal(left: Any, right: Any) -> bool:
    """Equal as JSON values: numbers by value, booleans never equal to numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and bool(left == right)


def stored_as_sent(field: Field, sent: Any, stored: Any) -> bool:
    """Whether `stored` is what a write of `sent` should leave, under the field's type."""
    if is_blank(sent):
        return is_blank(stored) or stored == []
    if is_blank(stored):
        return False
    kind = field.type
    if kind == "string":
        if not isinstance(stored, str) or not isinstance(sent, str):
            return False
        return _normalized_text(field, sent) == stored
    if kind == "number":
        return _same_number(field, sent, stored)
    if kind == "boolean":
        return _truth(sent) is not None and _truth(sent) is stored
    if kind == "datetime":
        return _same_instant(field, sent, stored)
    if kind in ("enum", "ref"):
        return not isinstance(stored, list | dict) and js_text(sent) == js_text(stored)
    if kind in ("list<enum>", "list<ref>"):
        if not isinstance(sent, list | tuple) or not isinstance(stored, list | tuple):
            return False
        return {js_text(v) for v in sent} == {js_text(v) for v in stored}
    if kind == "json":
        return json_equal(sent, stored)
    return True  # binary: the protocol gives it no wire form to compare


def read_back(
    fields: Mapping[str, Field], body: Mapping[str, Any], stored: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """`not_stored` violations for every requested value the stored record does not show.

    Write-only fields are exempt (an upstream never returns them), and so are keys
    that are not declared fields (`writeAllow`): nothing says how they read back.
    """
    if not isinstance(body, Mapping):
        return []
    by_name = {f.name: f for f in fields.values()}
    out: list[dict[str, Any]] = []
    for key, requested in body.items():
        field = by_name.get(key) if isinstance(key, str) else None
        if field is None or field.read_only or field.write_only:
            continue
        got = stored.get(key)
        if not stored_as_sent(field, requested, got):
            out.append(
                {
                    "code": "not_stored",
                    "field": key,
                    "expected": wire_safe(requested),
                    "got": wire_safe(got),
                }
            )
    return out


def not_stored_error(
    entity_name: str, record_id: str, differences: Sequence[Mapping[str, Any]]
) -> ProtocolError:
    """422 `not_stored`: the write happened but did not take; the client must not call it done."""
    names = ", ".join(str(d["field"]) for d in differences)
    return ProtocolError(
        "not_stored",
        f"Rejected by a2app (not_stored): the upstream app did not store {names} as sent "
        f'on {entity_name} record "{record_id}". Do NOT report this write as done.',
        violations=[dict(d) for d in differences],
        id=record_id,
    )
