"""Python values written as filter literals, the way the grammar reads them back.

`parse_filter` reads a literal back as the value rendered here, and so does
PocketBase (reference ``pocketbase-records-api.md`` §3.3, §3.4): text in
double quotes with JSON escapes, numbers without an exponent (the grammar has
none), ``true``, ``false``, ``null``, and a datetime as the quoted text of
PocketBase's stored form (``"2026-12-01 00:00:00.000Z"``), the one form that
compares as instants compare there.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime

from ._values import pb_datetime

# PocketBase 0.40.6 decodes \\ \" \n \r \t in a literal but not \b, \f or \uXXXX, which
# is how the other control characters would have to be written.
_UNSPELLABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def render_literal(value: object, *, escapes: bool = True) -> str | None:
    """`value` as a filter literal; None when no literal reads back as exactly `value`.

    With ``escapes=False`` text is refused that needs an escape (a quote, a
    backslash, a control character) or holds a character that prints blank:
    PocketBase before 0.39.9 decodes no escape but a quote's, so such text is
    read differently across versions, and a value chosen to probe an upstream
    should read in a report as it was sent.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text if math.isfinite(value) and "e" not in text else None
    if isinstance(value, str):
        return _text(value, escapes=escapes)
    if isinstance(value, datetime):
        return _datetime(value)
    return None


def _text(value: str, *, escapes: bool) -> str | None:
    if escapes:
        return None if _UNSPELLABLE.search(value) else json.dumps(value, ensure_ascii=False)
    if not value.isprintable() or '"' in value or "\\" in value:
        return None
    return json.dumps(value, ensure_ascii=False)


def _datetime(moment: datetime) -> str | None:
    """A zoneless datetime is read as UTC, as the local evaluator reads zoneless text."""
    if moment.microsecond % 1000:
        return None  # the stored form keeps milliseconds: it would name another instant
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return json.dumps(pb_datetime(moment))
