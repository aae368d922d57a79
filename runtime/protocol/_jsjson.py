"""JSON the way JavaScript writes it: for fingerprints, budgets, messages and approval keys.

Python's `json` differs from JavaScript in the places that change bytes
(`1e-07` against `1e-7`, `1.0` against `1`, how lone surrogates are written),
so the writer here follows ECMAScript rather than `json.dumps`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# Integers below this are exact doubles; above it JavaScript has already rounded
# the parsed value, so it must be rounded the same way before it is written.
_EXACT_INT = 2**53

_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def js_number_text(value: float) -> str:
    """`Number.prototype.toString()`: shortest round-trip digits, laid out as ECMAScript does."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        if -_EXACT_INT < value < _EXACT_INT:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"  # -0 included: String(-0) is "0"
    if value < 0:
        return "-" + js_number_text(-value)
    return _layout(*_shortest_digits(value))


def _shortest_digits(value: float) -> tuple[str, int]:
    """(digits, n) with value = 0.digits x 10^n; repr already picks the shortest round-trip."""
    mantissa, _, exponent = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent or "0")
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0"), point


def _layout(digits: str, n: int) -> str:
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(exponent)}"


def _utf16(text: str) -> str:
    """The string as JavaScript holds it: surrogate pairs joined, lone surrogates kept."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _quote(text: str, *, canonical: bool) -> str:
    out = ['"']
    for char in _utf16(text):
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            # JSON.stringify escapes a lone surrogate; the canonical writer keeps it
            # and the UTF-8 encoder later turns it into U+FFFD, as Node's does.
            out.append("\ufffd" if canonical else f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _sort_key(key: str) -> bytes:
    # Big-endian UTF-16 bytes order exactly as the code units do.
    return key.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: list[str], *, canonical: bool) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            if canonical:
                raise ValueError("RFC 8785 has no form for a non-finite number")
            out.append("null")
        else:
            out.append(js_number_text(value))
    elif isinstance(value, str):
        out.append(_quote(value, canonical=canonical))
    elif isinstance(value, Mapping):
        keys = [str(k) for k in value]
        items = list(zip(keys, value.values(), strict=True))
        if canonical:
            items.sort(key=lambda kv: _sort_key(kv[0]))
        out.append("{")
        for index, (key, item) in enumerate(items):
            if index:
                out.append(",")
            out.append(_quote(key, canonical=canonical))
            out.append(":")
            _write(item, out, canonical=canonical)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, canonical=canonical)
        out.append("]")
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


def js_json(value: Any) -> str:
    """`JSON.stringify(value)` of a parsed JSON value: key order kept, JS number text."""
    out: list[str] = []
    _write(value, out, canonical=False)
    return "".join(out)


def canonical_json(value: Any) -> str:
    """RFC 8785: keys sorted by UTF-16 code units at every depth, no whitespace."""
    out: list[str] = []
    _write(value, out, canonical=True)
    return "".join(out)


def stable_json(value: Any) -> str:
    """The fingerprint recipe's "stable JSON": RFC 8785 canonical JSON."""
    return canonical_json(value)


def compact_json(value: Any) -> str:
    """`JSON.stringify` of a parsed body: the measure of the describe budget."""
    return js_json(value)


def js_number(value: float) -> str:
    return js_number_text(value)


def js_length(text: str) -> int:
    """String length in UTF-16 code units, as JavaScript counts it."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def js_string(value: Any) -> str:
    """`String(value)` in JavaScript, for comparisons the protocol makes as text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_text(value)
    if isinstance(value, str):
        return value
    return compact_json(value)
