"""Cursor paging without a next cursor in the body: the last record's id is the cursor.

Stripe answers ``{data: [...], has_more: true}`` and takes ``starting_after=<id
of the last record>``; the mapping says so with ``nextFrom: id`` and ``more:
has_more``. The page size limit is read from the size parameter's own schema
or description ("Limit can range between 1 and 100").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from .._draft import Param

MORE_KEYS = ("has_more", "hasMore", "more")
_RANGE = re.compile(r"\bbetween\s+1\s+and\s+(\d+)\b", re.IGNORECASE)


def last_record(keys: Collection[str], id_field: str | None) -> dict[str, str] | None:
    """``{nextFrom, more}`` when the list answer has a more flag and records have an id."""
    more = next((k for k in MORE_KEYS if k in keys), None)
    if more is None or not id_field:
        return None
    return {"nextFrom": id_field, "more": more}


def has_ids(records: Sequence[Mapping[str, Any]], field: str = "id") -> bool:
    """Every record holds a plain `field` value (a usable cursor)."""
    return bool(records) and all(
        isinstance(r.get(field), str | int) and not isinstance(r.get(field), bool) for r in records
    )


def size_cap(params: Sequence[Param], name: str) -> tuple[int, str] | None:
    """(largest page size, where the spec says so) for the size parameter `name`."""
    param = next((p for p in params if p.name == name), None)
    found = _RANGE.search(param.claim.description or "") if param else None
    if found is None:
        return None
    return int(found.group(1)), f"its description says {found.group(0)!r}"
