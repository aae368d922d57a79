"""What sampled values say about a field: its wire kind, datetimes vs day keys, enums.

A claim from samples is only as strong as the samples: one value never makes an
enum, and values that could be ids stay plain until a lookup confirms a ref.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .._draft import Claim

_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$"
)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_.:-]{1,32}$")
_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")

ENUM_MIN_SAMPLES = 6
ENUM_MAX_VALUES = 10
# Integers that read as instants: seconds from 1973 to 2286, milliseconds from 1973 to
# 2286. Amounts and counts fall there too, so these are only candidates: a codec is
# declared where the spec or the field's name says the field is a time.
EPOCH_SECONDS = range(10**8, 10**10)
EPOCH_MS = range(10**11, 10**13)


# What the samples show, by the codec they fit.
CODEC_SHOWN = {
    "int-bool": "every value is 0 or 1",
    "epoch-seconds": "every value is an integer of epoch seconds",
    "epoch-ms": "every value is an integer of epoch milliseconds",
}


def integer_codec(values: Sequence[int]) -> str | None:
    """The codec every one of these integers fits, if any (a candidate only)."""
    if all(v in (0, 1) for v in values):
        return "int-bool"
    if all(v in EPOCH_SECONDS for v in values):
        return "epoch-seconds"
    if all(v in EPOCH_MS for v in values):
        return "epoch-ms"
    return None


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def is_datetime(text: str) -> bool:
    if not _DATETIME.match(text):
        return False
    try:
        dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        return False
    return True


def is_day(text: str) -> bool:
    if not _DAY.match(text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _strings(values: Sequence[str]) -> Claim:
    if all(is_day(v) for v in values):
        return Claim("sample", type="string", day_key=True, max=10, wire="string",
                     detail="every value is a YYYY-MM-DD day")  # fmt: skip
    if all(is_datetime(v) for v in values):
        return Claim("sample", type="datetime", wire="string",
                     detail="every value is an ISO 8601 datetime")  # fmt: skip
    if all(v.startswith(("http://", "https://")) for v in values):
        return Claim("sample", type="string", wire="url", detail="every value is a URL")
    if all(_NUMERIC.match(v) for v in values):
        return Claim("sample", type="string", wire="numeric", detail="numeric text")
    distinct = sorted(set(values))
    if (
        len(values) >= ENUM_MIN_SAMPLES
        and len(distinct) <= min(ENUM_MAX_VALUES, len(values) // 3)
        and all(_TOKEN.match(v) for v in distinct)
    ):
        return Claim("sample", type="enum", values=tuple(distinct), closed=False, wire="string",
                     detail="few distinct short values: candidates, not a closed set")  # fmt: skip
    return Claim("sample", type="string", wire="string")


def sample_claim(values: Sequence[Any]) -> Claim | None:
    """The claim of every sampled value of one field; None when all are null."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    nullable = len(present) < len(values)
    kinds = {kind_of(v) for v in present}
    if kinds == {"integer"}:
        # The candidate codec travels apart from `detail`, which is the claim's own word.
        claim = Claim("sample", type="number", wire="integer", codec=integer_codec(present))
    elif kinds <= {"integer", "number"}:
        claim = Claim("sample", type="number", wire="number")
    elif kinds == {"boolean"}:
        claim = Claim("sample", type="boolean", wire="boolean")
    elif kinds == {"string"}:
        claim = _strings(present)
    elif kinds == {"array"}:
        items = {kind_of(i) for v in present for i in v}
        item = items.pop() if len(items) == 1 else ("any" if not items else "mixed")
        claim = Claim("sample", type="json", wire=f"array:{item}")
    elif kinds == {"object"}:
        claim = Claim("sample", type="json", wire="object")
    else:
        claim = Claim("sample", type="json", wire="mixed",
                      detail="values of several kinds: " + ", ".join(sorted(kinds)))  # fmt: skip
    return replace(claim, nullable=nullable)
