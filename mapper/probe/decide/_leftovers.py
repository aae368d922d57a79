"""Routes of spec collections that did not become entities, back as operation candidates.

The list GET keeps the finding that says why its collection was refused; the
other routes (the detail read, writes) are proposed as operations or reported,
except those of a collection the live upstream does not have (its list answered
404): they are reported with it, never proposed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from .._errors import Finding
from ..sources import SpecRoute, SpecRoutes
from ._entities import Source


def _absent(src: Source) -> bool:
    return (
        src.obs is not None
        and src.obs.finding is not None
        and (src.obs.finding.code == "not-found")
    )


def _own_routes(src: Source) -> set[tuple[str, str]]:
    coll = src.spec
    if coll is None:
        return set()
    keys = {(m, coll.path) for m in coll.methods if m != "GET"}
    return keys | {(m, coll.detail_path) for m in coll.detail_methods}


def unserved(sources: Mapping[str, Source], mapped: Collection[str]) -> list[Finding]:
    """The routes of collections whose listing the live upstream answered 404."""
    found = []
    for name, src in sources.items():
        if name in mapped or not _absent(src):
            continue
        detail = f"the collection's listing {src.path} answered 404"
        found += [Finding(path, "not-found", detail, method)
                  for method, path in sorted(_own_routes(src))]  # fmt: skip
    return found


def unclaimed(
    routes: SpecRoutes,
    rest: Sequence[SpecRoute],
    sources: Mapping[str, Source],
    mapped: Collection[str],
) -> list[SpecRoute]:
    """`rest` and the routes of collections not in `mapped`, in the spec's order."""
    keys = {(r.method, r.path) for r in rest}
    for name, src in sources.items():
        if name not in mapped and not _absent(src):
            keys |= _own_routes(src)
    return [r for r in routes.routes if (r.method, r.path) in keys]
