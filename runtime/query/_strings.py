"""String literal escapes, as PocketBase ≥ 0.39.9 decodes them (reference §3.4).

JSON-style escapes are decoded in both quote styles; any other backslash pair
(`\\%`, `\\_`) is kept as written so LIKE escapes still reach `~`.
"""

from __future__ import annotations

import re

_SIMPLE = {
    "\\": "\\",
    '"': '"',
    "'": "'",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_ESCAPE = re.compile(
    r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[\s\S])"
)


def decode_string(body: str) -> str:
    """The value of a quoted literal, given the text between its quotes."""
    if "\\" not in body:
        return body
    return _ESCAPE.sub(_replace, body)


def _replace(match: re.Match[str]) -> str:
    escape = match.group(1)
    if escape[0] != "u" or len(escape) == 1:
        return _SIMPLE.get(escape, match.group(0))
    high = int(escape[1:5], 16)
    if len(escape) > 5:  # a surrogate pair, as JSON.stringify writes astral characters
        low = int(escape[7:11], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return _unit(high)


def _unit(code: int) -> str:
    # a lone surrogate cannot be carried in valid text; keep it visible instead
    return "\ufffd" if 0xD800 <= code < 0xE000 else chr(code)
