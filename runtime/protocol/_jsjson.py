"""JSON the way JavaScript writes it, for fingerprints, budgets and approval keys."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


def js_number(value: float) -> str:
    """`1` for 1.0, `1.5`, `1e+21` style is not needed for our value ranges."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def _normalize(value: Any, *, sort: bool) -> Any:
    if isinstance(value, Mapping):
        items = (
            sorted(value.items(), key=lambda kv: _utf16_key(str(kv[0]))) if sort else value.items()
        )
        return {str(k): _normalize(v, sort=sort) for k, v in items}
    if isinstance(value, list | tuple):
        return [_normalize(v, sort=sort) for v in value]
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    return value


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be")


def stable_json(value: Any) -> str:
    """Keys sorted at every depth by UTF-16 code units, compact, non-ASCII literal."""
    return json.dumps(
        _normalize(value, sort=True), separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def compact_json(value: Any) -> str:
    """`JSON.stringify` of a parsed body: the measure of the describe budget."""
    return json.dumps(_normalize(value, sort=False), separators=(",", ":"), ensure_ascii=False)


def js_length(text: str) -> int:
    """String length in UTF-16 code units, as JavaScript counts it."""
    return len(text.encode("utf-16-le")) // 2


def js_string(value: Any) -> str:
    """`String(value)` in JavaScript, for comparisons the protocol makes as text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, str):
        return value
    return compact_json(value)
