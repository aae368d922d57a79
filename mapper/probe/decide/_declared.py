"""Relations a collection schema declares (PocketBase's, a metadata API's): the sampled
ids are read as such, and each relation is confirmed by one lookup of a sampled id at
its target's detail route.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._draft import Claim, Ev
from ._entities import Source
from ._refs import RefDecision
from ._steps import Live, template

# The sampled wire shapes that agree with a declared relation.
_SHAPES = {
    "ref": ("string", "integer"),
    "list<ref>": ("array:string", "array:integer", "array:any"),
}


def as_relation(declared: Claim | None, sample: Claim) -> Claim:
    """Sampled ids agree with a declared relation: say so in its type, not as text."""
    if declared is None or declared.type not in _SHAPES:
        return sample
    if sample.wire not in _SHAPES[declared.type]:
        return sample
    return Claim("sample", type=declared.type, wire=sample.wire, nullable=sample.nullable)


def declared_ref(
    src: Source, wire: str, claim: Claim, sources: Mapping[str, Source], live: Live | None
) -> RefDecision:
    """The schema's relation, confirmed by a lookup when the samples hold an id."""
    if claim.type not in _SHAPES or claim.entity not in sources:
        return RefDecision(None, None)
    target = str(claim.entity)
    values = [v for value in src.values(wire) for v in _items(value)]
    ids = sorted({str(v) for v in values if v not in (None, "")}, key=lambda s: (len(s), s))
    if live is None or not ids:
        return RefDecision(claim.type, target, (), "medium")
    route = template(sources[target])
    if live.lookup(target, ids[0]):
        found = Ev("lookup", f"a sampled value resolves at GET {route}")
        return RefDecision(claim.type, target, (found,), "high")
    return RefDecision(claim.type, target, (Ev("lookup", f"a sampled value is not at {route}"),))


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
