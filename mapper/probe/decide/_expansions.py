"""Expandable fields as references, once the entities are known.

An expandable field (``anyOf[string, $ref customer]`` with
``x-expansionResources``) holds the target's id unless the caller asks to expand
it, which the runtime never does. It is a ``ref`` (or ``list<ref>``) when the
spec's own ``x-expansionResources`` names exactly one record schema and exactly
one mapped entity lists records of that schema; otherwise it stays ``json``,
with a note saying why.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._draft import EntityDraft, Ev
from ._entities import Source


def _short(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def settle(sources: Mapping[str, Source], entities: Mapping[str, EntityDraft]) -> None:
    by_schema: dict[str, list[str]] = {}
    for name, src in sources.items():
        if src.spec is not None and src.spec.item_ref and name in entities:
            by_schema.setdefault(src.spec.item_ref, []).append(name)
    for name, entity in entities.items():
        owner = sources.get(name)
        if owner is None or owner.spec is None or not owner.spec.expands:
            continue
        by_wire = {f.source: f for f in entity.fields.values()}
        for wire, found in owner.spec.expands.items():
            draft = by_wire.get(wire)
            if draft is None or draft.type != "json":
                continue
            named = ", ".join(_short(t) for t in found.targets)
            targets = [e for t in found.targets for e in by_schema.get(t, [])]
            if len(found.targets) != 1 or len(targets) != 1:
                why = (f"{len(found.targets)} kinds of record" if len(found.targets) != 1
                       else "no mapped entity lists them" if not targets
                       else "several mapped entities list them: " + ", ".join(targets))  # fmt: skip
                draft.notes.append(f"an id, or the expanded {named} (x-expansionResources); "
                                   f"not a ref: {why}")  # fmt: skip
                continue
            draft.type, draft.entity = found.kind, targets[0]
            draft.evidence.append(Ev(owner.spec_source, f"x-expansionResources: {named}"))
            draft.notes.append("an id unless asked to expand it; the runtime never asks")
