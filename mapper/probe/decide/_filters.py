"""Filter and sort candidates: what the upstream offers, never marked proven.

Filters come from the spec's query parameters, read through the dialect's
lookup table (django-filter's ``title__icontains``, json-server's
``position_gte``); only lookups whose meaning equals a protocol operator are
kept, since an unproven parameter is still pushed down and a wrong one would
narrow answers. Sort fields are found by asking for one record sorted up and
down by each field: a field the upstream ignores gives the same first record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from .._draft import Ev, FieldDraft, FilterDraft, Param, SortDraft
from ..live import envelope_of, records_of

if TYPE_CHECKING:
    from ..live import Exchange

LOOKUPS: dict[str, tuple[str, dict[str, str]]] = {
    "django-filter": (
        "__",
        {"": "=", "exact": "=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=", "icontains": "~"},
    ),
    "json-server": ("_", {"": "=", "ne": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}),
    "none": ("", {"": "="}),
}
SORT_PARAMS = ("ordering", "order_by", "sort", "orderBy", "order")
_ORDERED = ("number", "datetime")
_SCALAR = ("string", "number", "boolean", "datetime", "enum", "ref")

Fetch: TypeAlias = "Callable[[Mapping[str, str]], Exchange]"


def _operator(draft: FieldDraft | None, lookup: str, table: dict[str, str]) -> str | None:
    op = table.get(lookup)
    if op is None:
        return None
    kind = "id" if draft is None else draft.type
    if kind == "list<ref>":
        return "?=" if op == "=" else None  # "has this one among its refs"
    if kind not in (*_SCALAR, "id"):
        return None
    if op in ("<", "<=", ">", ">=") and not (kind in _ORDERED or (draft and draft.day_key)):
        return None
    if op == "~" and kind != "string":
        return None
    return op


def filter_candidates(
    params: Sequence[Param], fields: Mapping[str, FieldDraft], id_source: str, dialect: str
) -> dict[str, dict[str, FilterDraft]]:
    separator, table = LOOKUPS.get(dialect, LOOKUPS["none"])
    by_wire = {f.source: f for f in fields.values() if not f.write_only}
    out: dict[str, dict[str, FilterDraft]] = {}
    for param in sorted(params, key=lambda p: (len(p.name), p.name)):
        if param.where != "query":
            continue
        base, lookup = param.name, ""
        if separator and separator in param.name and param.name not in by_wire:
            base, _, lookup = param.name.rpartition(separator)
        draft = by_wire.get(base)
        if draft is None and base != id_source:
            continue
        op = _operator(draft, lookup, table)
        if op is None:
            continue
        name = "id" if draft is None else draft.name
        ops = out.setdefault(name, {})
        ops.setdefault(op, FilterDraft(param.name, (Ev(param.claim.source),)))
    return {name: dict(sorted(ops.items())) for name, ops in out.items()}


def sort_param(params: Sequence[Param]) -> str | None:
    names = {p.name for p in params if p.where == "query"}
    return next((n for n in SORT_PARAMS if n in names), None)


def _first_id(answer: Exchange, id_source: str) -> Any:
    envelope = envelope_of(answer.body, answer.content_type) if answer.ok else None
    records = records_of(answer.body, envelope) if envelope is not None else []
    return records[0].get(id_source) if records else None


def probe_sort(
    param: str,
    fields: Mapping[str, FieldDraft],
    records: Sequence[Mapping[str, Any]],
    id_source: str,
    fetch: Fetch,
) -> tuple[SortDraft | None, list[str]]:
    """Fields that reorder the answer when sorted up and down; untestable ones are left out."""
    chosen: list[str] = []
    untested: list[str] = []
    candidates = [("id", id_source)] + [
        (f.name, f.source) for f in fields.values()
        if f.type in _SCALAR and "." not in f.source and not f.write_only
    ]  # fmt: skip
    for name, wire in candidates:
        distinct = {repr(r.get(wire)) for r in records}
        if len(distinct) < 2:
            untested.append(name)
            continue
        up, down = (
            _first_id(fetch({param: wire}), id_source),
            _first_id(fetch({param: "-" + wire}), id_source),
        )
        if up is not None and down is not None and up != down:
            chosen.append(name)
    notes = []
    if chosen:
        notes.append(
            f"sort {param}: {', '.join(chosen)} (sample: sorting up and down by each "
            "gives different first records)"
        )
    if untested:
        notes.append(f"sort {param}: not tested for {', '.join(untested)} (one value in samples)")
    return (SortDraft(param, tuple(chosen)) if chosen else None), notes
