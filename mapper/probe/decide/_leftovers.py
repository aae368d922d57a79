"""Routes of spec collections that did not become entities, back as operation candidates.

The list GET keeps the finding that says why its collection was refused; the
other routes (the detail read, writes) are proposed as operations or reported.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ..sources import SpecRoute, SpecRoutes
from ._entities import Source


def unclaimed(
    routes: SpecRoutes,
    rest: Sequence[SpecRoute],
    sources: Mapping[str, Source],
    mapped: Collection[str],
) -> list[SpecRoute]:
    """`rest` and the routes of collections not in `mapped`, in the spec's order."""
    keys = {(r.method, r.path) for r in rest}
    for name, src in sources.items():
        coll = src.spec
        if coll is None or name in mapped:
            continue
        keys |= {(m, coll.path) for m in coll.methods if m != "GET"}
        keys |= {(m, coll.detail_path) for m in coll.detail_methods}
    return [r for r in routes.routes if (r.method, r.path) in keys]
