"""Filters of an API without a spec, found by read-only probing.

For every field and every parameter spelling the dialect knows (plain ``f=v``;
json-server's ``f_ne``, ``f_lt``, ``f_lte``, ``f_gt``, ``f_gte``, ``f_like``; Directus's
``filter[f][_eq]``, ``[_neq]``, ``[_lt]``, ``[_lte]``, ``[_gt]``, ``[_gte]``),
one value that selects some records but not all is chosen from the listing,
spelled by the runtime's planner, and sent. The parameter is declared only when
the answer holds exactly the records the protocol's filter selects over the
unfiltered listing: an ignored parameter returns everything, a loose one returns
others. Declared filters stay candidates (never ``proven``): the verifier proves
them with records of its own.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from typing import Any

from runtime.mapping import Entity, FilterParam
from runtime.protocol import ProtocolError
from runtime.query import EntityResolver, compile_filter, parse_filter, plan, render_literal
from runtime.upstream import Dialect

from .._draft import EntityDraft, Ev, FieldDraft, FilterDraft
from ._filters import _operator
from ._judge import Listing, Walker

SUFFIXES: dict[str, tuple[str, ...]] = {
    "none": ("",),
    "json-server": ("", "_ne", "_lt", "_lte", "_gt", "_gte", "_like"),
    "directus": ("[_eq]", "[_neq]", "[_lt]", "[_lte]", "[_gt]", "[_gte]"),
}
_OPS = {"": "=", "_ne": "!=", "_lt": "<", "_lte": "<=", "_gt": ">", "_gte": ">=", "_like": "~"}
_OPS.update({"[_eq]": "=", "[_neq]": "!=", "[_lt]": "<", "[_lte]": "<=", "[_gt]": ">",
             "[_gte]": ">="})  # fmt: skip
# How a dialect names the parameter of one field and operator (default: field + suffix).
PARAM_FORMS = {"directus": "filter[{field}]{suffix}"}
# json-server's `f_ne` skips records whose field is null or missing, where the protocol's
# `!=` selects them; with no schema any field but the id may be null, so only id gets it.
ID_ONLY: dict[str, tuple[str, ...]] = {"json-server": ("_ne",), "directus": ("[_neq]",)}
_ORDERED = ("<", "<=", ">", ">=")
_WORD = re.compile(r"[A-Za-z0-9]{3,}")
MAX_TRIES = 8
EXACT = "probed: exactly the records it selects"


def _values(records: list[dict[str, Any]], name: str) -> list[Any]:
    out: list[Any] = []
    for record in records:
        value = record.get(name)
        for item in value if isinstance(value, list) else [value]:
            if item is not None and item not in out:
                out.append(item)
    return out


def _candidates(records: list[dict[str, Any]], name: str, op: str) -> Iterator[Any]:
    values = _values(records, name)
    if op == "~":
        words = [w for v in values if isinstance(v, str) for w in _WORD.findall(v)]
        yield from dict.fromkeys(w.swapcase() for w in words)  # case folding is in the claim
        return
    if op in _ORDERED:
        ordered = sorted(values, key=lambda v: (isinstance(v, str), v))
        middle = len(ordered) // 2
        values = sorted(ordered, key=lambda v: abs(ordered.index(v) - middle))
    yield from values


def _ask(
    entity: Entity, entities: Mapping[str, Entity], name: str, op: str, param: str,
    everyone: list[dict[str, Any]], dialect: Dialect,
) -> tuple[dict[str, str], set[str]] | str:  # fmt: skip
    """The query parameters of one splitting value with the records it must select, or why
    there is none."""
    trial = dataclasses.replace(entity, filters={name: {op: FilterParam(param)}})
    resolver = EntityResolver(trial, {**entities, entity.name: trial})
    why = "untested (no value splits the listing)"
    for tried, value in enumerate(_candidates(everyone, name, op)):
        text = render_literal(value, escapes=False)
        if tried >= MAX_TRIES:
            break
        if text is None:
            continue
        try:
            expr = parse_filter(f"{name} {op} {text}")
            match = compile_filter(expr, resolver)
        except ProtocolError:
            continue
        expected = {str(r["id"]) for r in everyone if match(r)}
        if not 0 < len(expected) < len(everyone):
            continue
        the_plan = plan(trial, expr, [], dialect, can_page=False)
        if the_plan.pushed == 1:
            return dict(the_plan.params), expected
        why = "not tried (the runtime sends no such value upstream)"
    return why


def _flat_name(draft: FieldDraft) -> str:
    if "." in draft.source and draft.write_source is not None:
        return draft.write_source
    return draft.source


def _verdict(got: Listing, expected: set[str], everyone: set[str]) -> str:
    if got.status is not None:
        return f"answered {got.status}"
    ids = set(got.ids)
    if not got.complete:
        return "the answer was too long to compare"
    if ids == expected:
        return "exact"
    if ids == everyone:
        return "ignored"
    if expected - ids:
        return "drops records the filter selects"
    return "returns records the filter does not select"


def probe_filters(
    draft: EntityDraft, entities: Mapping[str, Entity], everyone: Listing, walker: Walker,
    dialect: Dialect,
) -> tuple[dict[str, dict[str, FilterDraft]], list[str]]:  # fmt: skip
    """Filters the answers proved exact over the listing, and notes on the rest."""
    entity = entities[draft.name]
    all_ids = set(everyone.ids)
    found: dict[str, dict[str, FilterDraft]] = {}
    outcomes: dict[str, list[str]] = {}
    table = {suffix: _OPS[suffix] for suffix in SUFFIXES.get(dialect.name, ())}
    subjects: list[tuple[str, FieldDraft | None, str]] = [("id", None, draft.id_source)]
    # A nested ref (read at severity.id) is tried by its flat write name (severity_id),
    # which the upstreams that take it on writes usually filter by too.
    subjects += [(n, f, _flat_name(f)) for n, f in draft.fields.items()]
    for name, fdraft, wire in subjects:
        if fdraft is not None and (fdraft.write_only or "." in wire):
            continue
        for suffix in table:
            op = _operator(fdraft, suffix, table)
            if op is None:
                continue
            if fdraft is not None and suffix in ID_ONLY.get(dialect.name, ()):
                outcomes.setdefault("not tried (skips null values: id only)", []).append(
                    f"{name} {op}"
                )
                continue
            param = PARAM_FORMS.get(dialect.name, "{field}{suffix}").format(
                field=wire, suffix=suffix
            )
            asked = _ask(entity, entities, name, op, param, everyone.records, dialect)
            if isinstance(asked, str):
                outcomes.setdefault(asked, []).append(f"{name} {op}")
                continue
            params, expected = asked
            verdict = _verdict(walker.walk(entity, params), expected, all_ids)
            if verdict == "exact":
                ops = found.setdefault(name, {})
                ops[op] = FilterDraft(param, (Ev("sample", EXACT),))
                if fdraft is not None and wire == fdraft.write_source and wire != fdraft.source:
                    # Read-only evidence that the upstream knows the write name: it
                    # selects exactly by it.
                    seen = Ev("sample", f"the upstream filters exactly by {wire!r}: it knows "
                              "the write name")  # fmt: skip
                    if seen not in fdraft.evidence:
                        fdraft.evidence.append(seen)
            else:
                outcomes.setdefault(verdict, []).append(f"{name} {op} ({param})")
    notes = [f"filter: {why}: {', '.join(items)}" for why, items in sorted(outcomes.items())]
    if found:
        declared = ", ".join(f"{n} {op}" for n, ops in found.items() for op in ops)
        notes.insert(
            0, f"filter: {declared} (sample: each answered exactly the records it selects)"
        )
    return found, notes
