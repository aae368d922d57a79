"""Sorting of an API without a spec, found by read-only probing.

Each sort parameter the dialect knows (``sort``, ``ordering``, … with ``-`` for
descending; json-server's ``_sort`` with ``_order``) is asked to order the whole
listing by one field up and down. A field is declared when both answers hold
every record in the order the runtime's own sort gives (nulls first ascending,
text by code point, refs and ids as text); a parameter is taken once some field
reorders the answer. Integer ids are never declared: the upstream orders them as
numbers, the protocol as text (``"10"`` before ``"9"``). Neither is what a dialect
says it orders otherwise (json-server: datetimes as stored text, and null values
last, so only fields that are never null).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from runtime.mapping import Entity, SortSpec
from runtime.query import EntityResolver, compile_sort, parse_sort
from runtime.upstream import Dialect, sort_params

from .._draft import EntityDraft, SortDraft
from ._filters import SORT_PARAMS
from ._judge import Listing, Walker

PARAMS: dict[str, tuple[tuple[str, str], ...]] = {
    "none": tuple((p, "-") for p in SORT_PARAMS),
    "json-server": (("_sort", ""),),
    "directus": (("sort", "-"),),
}
_SCALAR = ("string", "number", "boolean", "datetime", "enum", "ref")
# A parameter that reorders nothing for this many fields is taken as unknown.
MAX_IGNORED = 3


def _sortable(
    draft: EntityDraft, id_types: Mapping[str, str], dialect: Dialect
) -> tuple[list[str], list[str], list[str]]:
    """(candidates, integer-id fields left out, fields the upstream cannot order as the
    protocol does: compared as stored text, or nullable where nulls go last)."""
    names: list[str] = []
    integers: list[str] = []
    unsure: list[str] = []
    as_text: frozenset[str] = getattr(dialect, "text_compared", frozenset())
    nulls_last = bool(getattr(dialect, "nulls_last", False))
    for name, kind, target, required in [("id", "ref", draft.name, True)] + [
        (n, f.type, f.entity, f.required) for n, f in draft.fields.items()
        if not f.write_only and "." not in f.source
    ]:  # fmt: skip
        if kind not in _SCALAR:
            continue
        if kind in as_text or (nulls_last and not required):
            unsure.append(name)
            continue
        if kind == "ref" and id_types.get(target or "") == "integer":
            integers.append(name)
            continue
        names.append(name)
    return names, integers, unsure


def _in_order(got: Listing, entity: Entity, name: str, descending: bool) -> bool:
    sorter = compile_sort(parse_sort(("-" if descending else "") + name), EntityResolver(entity))
    return [str(r["id"]) for r in sorter(got.records)] == got.ids


def _distinct(listing: Listing, name: str) -> int:
    return len({repr(r.get(name)) for r in listing.records})


def _try(
    param: str, desc: str, names: Sequence[str], entity: Entity, everyone: Listing,
    walker: Walker, dialect: Dialect,
) -> tuple[bool, list[str], dict[str, list[str]]]:  # fmt: skip
    """(recognised, fields ordered as the runtime orders, {why not: other fields})."""
    spec = SortSpec(param=param, fields=tuple(names), desc=desc or "-")
    recognised, ordered, ignored = False, [], 0
    left_out: dict[str, list[str]] = {}
    for name in names:
        answers = [
            walker.walk(entity, sort_params(dialect, spec, [(name, d)], entity=entity))
            for d in (False, True)
        ]
        refused = next((a.status for a in answers if a.status is not None), None)
        if refused is not None or not all(a.complete for a in answers):
            why = f"answered {refused}" if refused is not None else "too long to compare"
            left_out.setdefault(why, []).append(name)
            continue
        up, down = answers
        if up.ids == down.ids:
            ignored += 1
            if not recognised and ignored >= MAX_IGNORED:
                break
            continue
        recognised = True
        same = set(up.ids) == set(down.ids) == set(everyone.ids)
        if same and _in_order(up, entity, name, False) and _in_order(down, entity, name, True):
            ordered.append(name)
        else:
            left_out.setdefault("the answer's order differs from the protocol's", []).append(name)
    return recognised, ordered, left_out


def probe_sorting(
    draft: EntityDraft, entities: Mapping[str, Entity], everyone: Listing, walker: Walker,
    dialect: Dialect,
) -> tuple[SortDraft | None, list[str]]:  # fmt: skip
    """The sort parameter and the fields it orders as the runtime would, with notes."""
    entity = entities[draft.name]
    id_types = {name: e.id_type for name, e in entities.items()}
    names, integers, texts = _sortable(draft, id_types, dialect)
    untested = [n for n in names if _distinct(everyone, n) < 2]
    names = [n for n in names if n not in untested]
    notes = []
    if integers:
        notes.append(
            f"sort: not declared for {', '.join(integers)} (integer ids: ordered as numbers "
            "upstream, as text by the protocol)"
        )
    if texts:
        notes.append(
            f"sort: not declared for {', '.join(texts)} (the {dialect.name} dialect orders "
            "them otherwise: by stored text, or null values last)"
        )
    if untested:
        notes.append(f"sort: not tested for {', '.join(untested)} (one value in the listing)")
    for param, desc in PARAMS.get(dialect.name, ()):
        recognised, ordered, left_out = _try(param, desc, names, entity, everyone, walker, dialect)
        if not recognised:
            continue
        notes.extend(
            f"sort {param}: not declared for {', '.join(fields)} ({why})"
            for why, fields in sorted(left_out.items())
        )
        if not ordered:
            return None, notes
        notes.insert(
            0,
            f"sort {param}: {', '.join(ordered)} (sample: read-only probes ordered the whole "
            "listing up and down as the protocol orders it)",
        )
        return SortDraft(param, tuple(ordered), desc), notes
    if names:
        tried = ", ".join(p for p, _ in PARAMS.get(dialect.name, ()))
        notes.append(f"sort: none found ({tried} reordered nothing)")
    return None, notes
