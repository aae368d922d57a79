"""Record ids are opaque: nothing in one may steer the upstream's URL.

Ids travel into upstream paths as one percent-encoded segment, and an encoded
slash, backslash or dot segment is still decoded by many servers (and by proxies
in front of them) into a step to another resource. So a value that holds one, or
reveals one after further decoding, names no record here and never leaves.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_STEERING = re.compile(r"[/\\?#\x00-\x1f\x7f]")
# Decodings tried beyond the one the HTTP layer already made.
_MORE_DECODINGS = 2
OPAQUE_EXPECTED = "a record id: no '/', '\\', '?', '#', dot segments or control characters"


def steers(value: str) -> bool:
    """True when `value` cannot travel as an opaque id (see the module docstring)."""
    for _ in range(_MORE_DECODINGS + 1):
        if value in (".", "..") or _STEERING.search(value):
            return True
        decoded = unquote(value)
        if decoded == value:
            return False
        value = decoded
    return value in (".", "..") or _STEERING.search(value) is not None
