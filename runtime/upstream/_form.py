"""Write bodies as HTML forms (``application/x-www-form-urlencoded``), nested in brackets.

The convention of Rack, PHP and Stripe: an object's keys go in brackets after its
name, a list's items by their index, so ``{"metadata": {"plan": "pro"}, "items":
[{"price": "p_1"}]}`` is sent as ``metadata[plan]=pro&items[0][price]=p_1``.
A form has no null and no empty object: a blank is sent as the empty text, which
is how such upstreams are told to clear a value (``description=``, ``metadata=``).
Booleans are ``true``/``false``; numbers keep JavaScript's spelling.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from runtime.protocol import compact_json

FORM_MEDIA = "application/x-www-form-urlencoded"


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value):
        return compact_json(value)  # 1, not 1.0
    if isinstance(value, str):
        return value
    return compact_json(value)


def form_pairs(body: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every leaf of `body` as a (bracketed key, text) pair, in the body's order."""
    pairs: list[tuple[str, str]] = []

    def walk(key: str, value: Any) -> None:
        if isinstance(value, Mapping):
            if not value:
                pairs.append((key, ""))
            for name, inner in value.items():
                walk(f"{key}[{name}]", inner)
        elif isinstance(value, list | tuple):
            if not value:
                pairs.append((key, ""))
            for index, inner in enumerate(value):
                walk(f"{key}[{index}]", inner)
        else:
            pairs.append((key, _scalar(value)))

    for name, value in body.items():
        walk(str(name), value)
    return pairs


def form_body(body: Mapping[str, Any]) -> bytes:
    """The encoded form (brackets percent-encoded, which every such parser reads)."""
    return urlencode(form_pairs(body)).encode("ascii")
