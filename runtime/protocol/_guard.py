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

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.mapping import Field

from ._body import Unrepresentable, bad_text, wire_safe
from ._errors import ErrorCode, ProtocolError
from ._ids import OPAQUE_EXPECTED, steers
from ._jsjson import js_json, js_number_text

# Ids one write body may name across its ref fields: each is read upstream before
# the write, so the bound keeps one request from holding the connection pool.
MAX_REFS = 100

REQUIRED_TEXT = "a non-blank value (required field)"
NO_WRITABLE_TEXT = "nothing \u2014 no writable fields are declared"
DATE_CODES: frozenset[ErrorCode] = frozenset({"invalid_date", "invalid_daykey"})

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

    code: ErrorCode
    field: str
    expected: str
    got: Any = None

    def as_dict(self) -> dict[str, Any]:
        got = wire_safe(self.got)
        return {"code": self.code, "field": self.field, "expected": self.expected, "got": got}


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
    if isinstance(value, bool | Unrepresentable):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    # Numeric text must also be finite: "Infinity" and "1e400" are numbers to
    # JavaScript, but no upstream stores them (a documented departure from §10.2).
    return isinstance(value, str) and is_numeric_text(value) and _finite_text(value)


def _finite_text(value: str) -> bool:
    text = value.strip(_JS_SPACE).lstrip("+-")
    if text.startswith("Infinity"):
        return False
    if text[:2].lower() in ("0x", "0o", "0b"):
        return True
    return math.isfinite(float(text))


# The type's own code for a refused value, and how its valid values read.
_CODES: dict[str, tuple[ErrorCode, str]] = {
    "string": ("invalid_string", "text"),
    "number": ("invalid_number", "a number"),
    "boolean": ("invalid_boolean", "true or false"),
    "datetime": ("invalid_date", "an ISO 8601 date"),
    "enum": ("invalid_enum", "one of the values"),
    "list<enum>": ("invalid_enum", "an array of the values"),
    "ref": ("invalid_ref", "a record id"),
    "list<ref>": ("invalid_ref", "an array of record ids"),
    "json": ("invalid_json", "a JSON value"),
    "binary": ("invalid_json", "a value"),
}
_DAY_KEY_CODE: tuple[ErrorCode, str] = ("invalid_daykey", 'a day key "YYYY-MM-DD"')


def _code_of(field: Field, *, day_key: bool) -> tuple[ErrorCode, str]:
    return _DAY_KEY_CODE if day_key else _CODES.get(field.type, ("invalid_json", "a value"))


def _unstorable(value: Any) -> str | None:
    """Why a parsed value can reach no upstream as sent, anywhere inside it; None if it can."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Unrepresentable):
            return "a finite number"
        if isinstance(node, float) and not math.isfinite(node):
            return "a finite number"
        if isinstance(node, str) and bad_text(node):
            return "text without NUL or unpaired surrogate characters"
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return None


def _is_id(value: Any) -> bool:
    if isinstance(value, str):
        return not isinstance(value, Unrepresentable) and not bad_text(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _ref_violation(field: Field, value: Any) -> tuple[ErrorCode, str] | None:
    if field.type == "ref":
        if not _is_id(value):
            return "invalid_ref", "a record id"
        ids = [value]
    else:
        if not isinstance(value, list | tuple) or not all(_is_id(v) for v in value):
            return "invalid_ref", "an array of record ids"
        ids = list(value)
    if any(isinstance(i, str) and steers(i) for i in ids):
        return "invalid_ref", OPAQUE_EXPECTED
    return None


def ref_ids(field: Field, value: Any) -> list[str]:
    """The ids a well-formed ref or list<ref> value names, as strings."""
    if is_blank(value) or not field.is_ref:
        return []
    values = value if isinstance(value, list | tuple) else [value]
    return [str(v) for v in values]


def _in_values(field: Field, value: Any) -> bool:
    text = js_text(value)
    return any(js_text(allowed) == text for allowed in field.values)


def _value_violation(field: Field, value: Any, *, day_key: bool) -> tuple[ErrorCode, str] | None:
    """(code, expected) for a non-blank value of a writable field, or None when it passes."""
    kind = field.type
    if field.is_ref:
        return _ref_violation(field, value)  # a record id, or not: nothing in between
    unstorable = _unstorable(value)
    if unstorable is not None:
        code, wanted = _code_of(field, day_key=day_key)
        if code == "invalid_number":
            return code, "a finite number"
        if code == "invalid_string":
            # Bad text is told as such; a number token where text belongs is just not text.
            return code, unstorable if isinstance(value, str) and bad_text(value) else wanted
        return code, "a value without NaN, Infinity, NUL or unpaired surrogates"
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
        infinite = isinstance(value, str) and is_numeric_text(value)
        return "invalid_number", "a finite number" if infinite else "a number"
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


CREATE_ONLY_TEXT = "not writable after create (written on create only)"
UPDATE_ONLY_TEXT = "not writable on create (it can be set by an update)"


def check(
    fields: Mapping[str, Field],
    body: Mapping[str, Any],
    *,
    require: bool,
    write_allow: Sequence[str] = (),
    params: bool = False,
    update: bool = False,
) -> list[Violation]:
    """Every violation in `body`, in body order, then absent required fields in declaration order.

    `require` is on for a create and for every operation call; off for a partial
    update, where a blank required field is still refused. With `params` the
    fields are operation parameters: they carry only name, type, required, max,
    values and entity, so nothing is read-only or a day key, and no extra key is
    allowed. With `update` a field written on create only (`createOnly`) is
    refused as read-only: the upstream's update takes no such field; with `require`
    (a create), a field written on update only (`updateOnly`) is.
    """
    if not isinstance(body, Mapping):
        return [Violation("invalid_json", "", "one JSON object of field values", body)]
    by_name = {f.name: f for f in fields.values()}
    allowed = frozenset() if params else frozenset(write_allow)
    writable = [f.name for f in by_name.values() if params or not f.read_only]
    unknown_text = "one of: " + ", ".join(writable) if writable else NO_WRITABLE_TEXT
    out: list[Violation] = []
    named = 0  # record ids named so far, across the ref fields
    for key, value in body.items():
        if key in allowed:
            # Passed through unvalidated, as the protocol allows; but still sent.
            if _unstorable(value) is not None:
                out.append(Violation("invalid_json", key, _unstorable(value) or "", value))
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
        if field.create_only and update and not params:
            out.append(Violation("read_only_field", key, CREATE_ONLY_TEXT, value))
            continue
        if field.update_only and require and not params:
            out.append(Violation("read_only_field", key, UPDATE_ONLY_TEXT, value))
            continue
        day_key = field.day_key and not params
        if is_blank(value):
            if field.required:
                out.append(Violation("missing_required", key, REQUIRED_TEXT, value))
            elif field.nullable is False and (value is None or day_key or field.type != "string"):
                code, expected = _code_of(field, day_key=day_key)
                out.append(Violation(code, key, f"{expected} (not null)", value))
            continue
        failed = _value_violation(field, value, day_key=day_key)
        if failed is not None:
            out.append(Violation(failed[0], key, failed[1], value))
        elif key == "id" and isinstance(value, str) and steers(value):
            # A client-chosen id (Entity.create_fields) travels in paths later.
            out.append(Violation("invalid_string", key, OPAQUE_EXPECTED, value))
        elif field.is_ref:
            count = len(ref_ids(field, value))
            named += count
            if named > MAX_REFS:
                expected = f"at most {MAX_REFS} record ids in one write"
                out.append(Violation("invalid_ref", key, expected, value))
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
        got=wire_safe(first.got),
        violations=[v.as_dict() for v in violations],
    )
