"""The guard: raw write bodies and operation arguments against declared fields (§10, §11).

Pure rules, shared by the records routes and the operations route, so two
entities (or two apps) reject an identical payload identically. Every check
reads the RAW body: once a backend has coerced a value, an invalid date and a
deliberately cleared field can no longer be told apart.

Semantics follow JavaScript wherever the wire contract was defined in it:
`Number()` for numeric text, `String()` for enum comparison, UTF-16 units for
lengths, and `JSON.stringify` for the value quoted in a message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.mapping import Field

from ._errors import ProtocolError
from ._jsjson import js_json, js_number_text

UNPARSED = "__unparsed__"

REQUIRED_TEXT = "a non-blank value (required field)"
NO_WRITABLE_TEXT = "nothing \u2014 no writable fields are declared"
DATE_CODES = frozenset({"invalid_date", "invalid_daykey"})

# JavaScript's WhiteSpace and LineTerminator: what trim(), Number() and \s skip.
# Python's own notion differs (it strips \x1c-\x1f and \x85, keeps \ufeff).
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_S = "[" + re.escape(_JS_SPACE) + "]"

_DATE = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
    + _S
    + r"*(?:Z|[+-]\d{2}:?\d{2})?",
    re.ASCII,
)
_DAY_KEY = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
# StringNumericLiteral: signed decimals and Infinity; prefixed integers take no sign.
_JS_NUMBER = re.compile(
    r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+",
    re.ASCII,
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@dataclass(frozen=True, slots=True)
class Violation:
    """One refused key: the protocol's `{code, field, expected, got}`."""

    code: str
    field: str
    expected: str
    got: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "field": self.field, "expected": self.expected, "got": self.got}


def _utf16_length(text: str) -> int:
    # Counted per character rather than by encoding, so a lone surrogate (legal in
    # a parsed JSON string) counts as the one unit JavaScript sees, not an error.
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def is_blank(value: Any) -> bool:
    """`null` or `""`: on a write it means "clear this field"."""
    return value is None or (isinstance(value, str) and value == "")


def _valid_ymd(match: re.Match[str] | None) -> bool:
    # The regex alone accepts 2026-13-45.
    if match is None:
        return False
    year, month, day = (int(part) for part in match.group(1, 2, 3))
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= (29 if month == 2 and leap else _MONTH_DAYS[month - 1])


def is_date(value: Any) -> bool:
    return isinstance(value, str) and _valid_ymd(_DATE.fullmatch(value))


def is_day_key(value: Any) -> bool:
    return isinstance(value, str) and _valid_ymd(_DAY_KEY.fullmatch(value))


def is_numeric_text(value: str) -> bool:
    """True where `value.trim() !== "" && !isNaN(Number(value))` holds in JavaScript."""
    trimmed = value.strip(_JS_SPACE)
    return trimmed != "" and _JS_NUMBER.fullmatch(trimmed) is not None


def js_text(value: Any) -> str:
    """`String(value)` for parsed JSON: arrays join with ",", objects read `[object Object]`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return _join(value, ",")
    if isinstance(value, Mapping):
        return "[object Object]"
    return str(value)


def _join(values: Sequence[Any], separator: str) -> str:
    # Array.prototype.join renders null as an empty slot, unlike String(null).
    return separator.join("" if v is None else js_text(v) for v in values)


def _is_number(value: Any) -> bool:
    # bool is an int in Python but never a number on the wire.
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and is_numeric_text(value))


def _in_values(field: Field, value: Any) -> bool:
    text = js_text(value)
    return any(js_text(allowed) == text for allowed in field.values)


def _value_violation(field: Field, value: Any, *, day_key: bool) -> tuple[str, str] | None:
    """(code, expected) for a non-blank value of a writable field, or None when it passes."""
    kind = field.type
    if kind == "datetime" and not is_date(value):
        return "invalid_date", "an ISO 8601 date"
    if day_key and not is_day_key(value):
        return "invalid_daykey", 'a day key "YYYY-MM-DD"'
    if kind == "string":
        if not isinstance(value, str):
            return "invalid_string", "text"
        if field.max is not None and _utf16_length(value) > field.max:
            return "invalid_string", f"text of at most {field.max} characters"
    if kind == "number" and not _is_number(value):
        return "invalid_number", "a number"
    if kind == "boolean" and not isinstance(value, bool) and value not in ("true", "false"):
        return "invalid_boolean", "true or false"
    if kind == "enum" and field.values and not _in_values(field, value):
        return "invalid_enum", "one of: " + _join(field.values, " | ")
    if kind == "list<enum>" and field.values:
        # The wire form of a list is an array; wrapping a bare scalar would hide
        # a client bug and make the stored shape depend on how many were sent.
        if not isinstance(value, list | tuple):
            return "invalid_enum", "an array of: " + _join(field.values, " | ")
        if not all(_in_values(field, item) for item in value):
            return "invalid_enum", "each of: " + _join(field.values, " | ")
    return None


def check(
    fields: Mapping[str, Field],
    body: Mapping[str, Any],
    *,
    require: bool,
    write_allow: Sequence[str] = (),
    params: bool = False,
) -> list[Violation]:
    """Every violation in `body`, in body order, then absent required fields in declaration order.

    `require` is on for a create and for every operation call; off for a partial
    update, where a blank required field is still refused. With `params` the
    fields are operation parameters: they carry only name, type, required, max,
    values and entity, so nothing is read-only or a day key, and no extra key is
    allowed.
    """
    if not isinstance(body, Mapping):
        # A non-object body has no keys of its own; name it so the caller sees why.
        body = {UNPARSED: body}
    by_name = {f.name: f for f in fields.values()}
    allowed = frozenset() if params else frozenset(write_allow)
    writable = [f.name for f in by_name.values() if params or not f.read_only]
    unknown_text = "one of: " + ", ".join(writable) if writable else NO_WRITABLE_TEXT
    out: list[Violation] = []
    for key, value in body.items():
        if key in allowed:
            continue
        # Plain dict membership: a key named after an object member ("constructor",
        # "__proto__") must never read as a declared field.
        field = by_name.get(key) if isinstance(key, str) else None
        if field is None:
            out.append(Violation("unknown_field", str(key), unknown_text, value))
            continue
        if field.read_only and not params:
            out.append(Violation("read_only_field", key, "not writable (server-managed)", value))
            continue
        if is_blank(value):
            if field.required:
                out.append(Violation("missing_required", key, REQUIRED_TEXT, value))
            continue
        failed = _value_violation(field, value, day_key=field.day_key and not params)
        if failed is not None:
            out.append(Violation(failed[0], key, failed[1], value))
    if require:
        for field in by_name.values():
            if field.required and (params or not field.read_only) and field.name not in body:
                out.append(Violation("missing_required", field.name, REQUIRED_TEXT, None))
    return out


def describe_violation(violation: Violation, server_now: str) -> str:
    """The one generated sentence; never hand-written, so every entity words it alike."""
    message = (
        f'Rejected by a2app ({violation.code}): field "{violation.field}" expects '
        f"{violation.expected}; got {js_json(violation.got)}"
    )
    if server_now and violation.code in DATE_CODES:
        message += f'. Example: "{server_now[:10]}"'
    if server_now:
        message += f". Server time is {server_now}"
    return message + "."


def guard_error(violations: Sequence[Violation], server_now: str) -> ProtocolError:
    """The 400 envelope: the first violation at top level, every one under `violations`."""
    if not violations:
        raise ValueError("a guard error needs at least one violation")
    first = violations[0]
    return ProtocolError(
        first.code,
        describe_violation(first, server_now),
        field=first.field,
        expected=first.expected,
        got=first.got,
        violations=[v.as_dict() for v in violations],
    )


def read_back(
    fields: Mapping[str, Field], body: Mapping[str, Any], stored: Mapping[str, Any]
) -> list[str]:
    """Names of requested non-blank values the stored record shows as blank, in body order.

    Deliberately conservative: only "asked for something, stored nothing" counts,
    so a stored `false`/`0` or a re-formatted timezone is never a divergence.
    Write-only fields are never returned by an upstream, so they are exempt.
    """
    if not isinstance(body, Mapping):
        return []
    by_name = {f.name: f for f in fields.values()}
    missing: list[str] = []
    for key, requested in body.items():
        field = by_name.get(key) if isinstance(key, str) else None
        if field is None or field.read_only or field.write_only or is_blank(requested):
            continue
        if is_blank(stored.get(key)):
            missing.append(key)
    return missing


def not_stored_error(entity_name: str, record_id: str, missing: Sequence[str]) -> ProtocolError:
    """422 `not_stored`: the write happened but did not take; the client must not call it done."""
    names = ", ".join(missing)
    return ProtocolError(
        "not_stored",
        f"Rejected by a2app (not_stored): the upstream app did not store {names} "
        f'on {entity_name} record "{record_id}". Do NOT report this write as done.',
        violations=[{"code": "not_stored", "field": name} for name in missing],
        id=record_id,
    )
