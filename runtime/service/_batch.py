"""Related records by id in one upstream listing, for a dialect with a native filter language.

`expand` and filters through refs need the records a page refers to. Where the
upstream takes whole filter expressions (PocketBase) and the target offers
``id =`` in it, those records are asked for as ``id = "a" || id = "b" || …``,
one listing per chunk, instead of one read per id. Only records whose id was
asked for are kept; an id the listing does not return is left to the usual
read by id, so a listing that ignores the filter costs time, never a record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.mapping import Entity
from runtime.protocol import ProtocolError
from runtime.query import Compare, Expr, Literal, Or, Path
from runtime.upstream import native_filter

from ._reach import Reach

CHUNK = 50  # ids per listing: well inside the upstream's 200 comparisons and 3500 characters


def _any_of(ids: Sequence[str]) -> Expr:
    terms = tuple(Compare(Path(("id",)), "=", Literal(i)) for i in ids)
    return terms[0] if len(terms) == 1 else Or(terms)


async def records_by_id(
    reach: Reach, target: Entity, ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The records of `ids` one listing per chunk could find; empty without a native filter."""
    found: dict[str, dict[str, Any]] = {}
    dialect = reach.upstream.dialect
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        told = native_filter(target, _any_of(chunk), dialect)
        if told is None or told.residual or not told.params:
            return found
        try:
            async for record in reach.upstream.scan(target, told.params, limit=len(chunk)):
                if record["id"] in chunk:
                    found[str(record["id"])] = record
        except ProtocolError as exc:
            if not exc.is_("upstream_rejected"):
                raise
            return found  # refused: every id is read on its own
    return found
