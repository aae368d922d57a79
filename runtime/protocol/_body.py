"""Request bodies read strictly: one JSON object, or a refusal with a code of its own.

The reference hands unparsable text to the guard as a field named `__unparsed__`;
here a body that is not one JSON object is `invalid_json` (a documented extension),
so the caller hears what is wrong with the body instead of a spurious
`unknown_field` and `missing_required`. What JSON allows but no upstream can store
(NaN and Infinity, numbers beyond a double, lone surrogates) parses into values the
guard recognises and refuses per field, with the field's own code.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from ._errors import ProtocolError

MAX_DEPTH = 32
# Digits beyond a double's range: JavaScript reads such an integer as Infinity.
_MAX_INT_DIGITS = 309
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


class Unrepresentable(str):
    """A number token JSON allows but no JSON number can carry: NaN, ±Infinity, 1e400.

    A `str` so that it renders as the text the client sent wherever a value is
    echoed back (a violation's `got`), and never as a number.
    """

    __slots__ = ()


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _float(text: str) -> float | Unrepresentable:
    value = float(text)
    return value if math.isfinite(value) else Unrepresentable(text)


def _int(text: str) -> int | Unrepresentable:
    # Checked before int(): Python refuses to convert very long digit strings at all.
    digits = len(text) - text.startswith("-")
    return int(text) if digits <= _MAX_INT_DIGITS else Unrepresentable(text)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _invalid(message: str, **extra: Any) -> ProtocolError:
    return ProtocolError("invalid_json", f"Rejected by a2app (invalid_json): {message}", **extra)


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children: Iterator[Any]
        if isinstance(node, dict):
            children = iter(node.values())
        elif isinstance(node, list):
            children = iter(node)
        else:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _bad_key(value: Any) -> str | None:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if _BAD_TEXT.search(key):
                    return str(key)
                stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)
    return None


def parse_body(raw: bytes) -> dict[str, Any] | None:
    """The body as one JSON object; None when empty (a handler reads that as `{}`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(f"the body is not UTF-8 (byte {exc.start}).") from None
    if not text.strip():
        return None
    try:
        parsed = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_float=_float,
            parse_int=_int,
            parse_constant=Unrepresentable,
        )
    except _DuplicateKey as exc:
        key = wire_safe(exc.key)
        raise _invalid(f'the key "{key}" appears twice in one object.', field=key) from None
    except RecursionError:
        raise _invalid(f"the body nests deeper than {MAX_DEPTH} levels.") from None
    except ValueError as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            where = f" (line {exc.lineno}, column {exc.colno})"
        raise _invalid(f"the body is not JSON{where}; send one JSON object.") from None
    if not isinstance(parsed, dict):
        kind = "an array" if isinstance(parsed, list) else "a single value"
        raise _invalid(f"the body is {kind}; send one JSON object of field values.")
    if _too_deep(parsed):
        raise _invalid(f"the body nests deeper than {MAX_DEPTH} levels.")
    key = _bad_key(parsed)
    if key is not None:
        raise _invalid(
            "a key holds a NUL or an unpaired surrogate character.", field=wire_safe(key)
        )
    return parsed


def bad_text(value: str) -> bool:
    """A NUL or a lone surrogate: text no upstream stores as sent."""
    return _BAD_TEXT.search(value) is not None


def wire_safe(value: Any) -> Any:
    """`value` as it can be written in a JSON answer: lone surrogates escaped as text,
    numbers JSON cannot carry as the text they were sent as."""
    if isinstance(value, Unrepresentable):
        return str(value)
    if isinstance(value, str):
        if not bad_text(value):
            return value
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {wire_safe(k): wire_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [wire_safe(v) for v in value]
    return value
