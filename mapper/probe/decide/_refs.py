"""References: an id-valued field whose values resolve at another entity's detail route.

A candidate target comes from an explicit signal (a JSON:API relationship's
``type``), from the field's name (``list``, ``list_id`` -> ``lists``), or from
the sampled ids of other entities. It becomes a ``ref`` (or ``list<ref>``) only
when a GET of one sampled value at the target's detail route answers that
record. Integer ids collide across tables, so without a name or an explicit
signal several resolving targets make the field ambiguous, not a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._draft import Claim, Ev
from .._naming import target_names
from ..live import kind_of

# (target entity, id value) -> the detail route answered that record.
Lookup = Callable[[str, Any], bool]
NESTED_ID = "id"
LABEL_KEYS = ("name", "title", "label")  # the protocol's own label order


@dataclass(frozen=True, slots=True)
class RefDecision:
    type: str | None  # ref | list<ref> | None (not a ref)
    entity: str | None
    evidence: tuple[Ev, ...] = ()
    confidence: str = "low"
    note: str | None = None
    candidates: tuple[str, ...] = ()
    ambiguous: bool = False
    # The key a nested object holds the id under (``{"id": 3, "name": "high"}``),
    # when the upstream renders the reference as the target's record in little.
    nested: str | None = None


def id_like(values: Sequence[Any]) -> str | None:
    """``scalar`` or ``list`` when every non-null value could be an id (or list of ids)."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    kinds = {kind_of(v) for v in present}
    if kinds <= {"string", "integer"}:
        return "scalar"
    if kinds == {"array"}:
        items = [i for v in present for i in v]
        if items and {kind_of(i) for i in items} <= {"string", "integer"}:
            return "list"
    return None


def nested_ids(values: Sequence[Any]) -> tuple[str, list[Any]] | None:
    """``("id", ids)`` when every present value is an object holding a scalar ``id`` (a
    reference rendered as the target's record in little, ``{"id": 3, "name": "high"}``),
    or a list of such objects (then ``ids`` holds one list of ids per value)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, list) for v in present):
        items = [i for v in present for i in v]
        if not items or nested_ids(items) is None:
            return None
        return NESTED_ID, [[i.get(NESTED_ID) for i in v] for v in present]
    if not present or not all(isinstance(v, Mapping) for v in present):
        return None
    ids = [v.get(NESTED_ID) for v in present]
    if not all(kind_of(i) in ("string", "integer") for i in ids):
        return None
    return NESTED_ID, ids


def _nested_label(values: Sequence[Any]) -> str | None:
    """The key every nested object labels its record with (``name``), if one does."""
    present = [v for v in values if isinstance(v, Mapping)]
    for key in LABEL_KEYS:
        if present and all(isinstance(v.get(key), str) for v in present):
            return key
    return None


def _flat(values: Sequence[Any], shape: str) -> list[Any]:
    present = [v for v in values if v is not None]
    return [i for v in present for i in v] if shape == "list" else present


def decide(
    field: str,
    values: Sequence[Any],
    entities: Mapping[str, frozenset[str]],
    lookup: Lookup | None,
    *,
    explicit: str | None = None,
    detail_paths: Mapping[str, str] | None = None,
) -> RefDecision | None:
    """Whether `field` refers to an entity; None when it is not id-valued at all.

    `entities` maps every entity to its sampled ids (as text), for value matches.
    A nested object's id is decided as the id itself, and the decision says so.
    """
    nested = nested_ids(values)
    if nested is not None:
        decision = decide(field, nested[1], entities, lookup, explicit=explicit,
                          detail_paths=detail_paths)  # fmt: skip
        if decision is None or decision.type is None:
            return decision
        items = [i for v in values if isinstance(v, list) for i in v]
        label = _nested_label(items if decision.type == "list<ref>" else values)
        shown = f" and {label!r} its label" if label else ""
        found = Ev("sample", f"a nested object; its {nested[0]!r} is the reference{shown}")
        evidence = (decision.evidence[0], found, *decision.evidence[1:])
        return replace(decision, nested=nested[0], evidence=evidence)
    shape = id_like(values)
    if shape is None:
        return None
    ids = _flat(values, shape)
    kind = "ref" if shape == "scalar" else "list<ref>"
    by_name = [t for t in target_names(field) if t in entities]
    # Numbers collide across tables (every table has a record 1): only text ids match.
    textual = all(isinstance(v, str) for v in ids)
    by_value = sorted(
        t for t, known in entities.items() if textual and {str(v) for v in ids} <= known
    )
    if explicit and explicit in entities:
        candidates, why = [explicit], Ev("links", f"JSON:API relationship of type {explicit}")
    elif by_name:
        candidates, why = by_name[:1], Ev("name", f"the name {field!r} names {by_name[0]}")
    else:
        candidates, why = by_value, Ev("sample", "values are ids seen in that entity's samples")
    if not candidates:
        return RefDecision(None, None)
    if lookup is None:
        return RefDecision(
            None, None, candidates=tuple(candidates),
            note=f"ref candidate {candidates[0]} ({why.detail}); no live lookup confirmed it",
        )  # fmt: skip
    probe = sorted((str(v) for v in ids), key=lambda s: (len(s), s))[0]
    sample = next(v for v in ids if str(v) == probe)
    resolved = [t for t in candidates if lookup(t, sample)]
    path = (detail_paths or {}).get(resolved[0], "its detail route") if resolved else ""
    if len(resolved) == 1:
        strong = why.source in ("name", "links")
        return RefDecision(
            kind, resolved[0], (why, Ev("lookup", f"a sampled value resolves at GET {path}")),
            "high" if strong else "medium", candidates=tuple(candidates),
        )  # fmt: skip
    if len(resolved) > 1:
        return RefDecision(
            None, None, candidates=tuple(resolved), ambiguous=True,
            note="ambiguous-id: sampled values resolve at " + ", ".join(resolved),
        )  # fmt: skip
    return RefDecision(
        None, None, candidates=tuple(candidates),
        note=f"not a ref: a sampled value does not resolve at {candidates[0]}",
    )  # fmt: skip


def by_name_only(
    field: str, wire: str | None, entities: Mapping[str, object]
) -> RefDecision | None:
    """Without live samples: a candidate named for review, never a ref."""
    if wire not in ("string", "integer", "array:string", "array:integer"):
        return None
    found = [t for t in target_names(field) if t in entities]
    if not found:
        return None
    return RefDecision(
        None, None, candidates=(found[0],),
        note=f"ref candidate {found[0]} (by name); only a live lookup can confirm it",
    )  # fmt: skip


# Spec formats only ids take: a field in one names a record wherever its name does too.
ID_FORMATS = frozenset({"uuid"})


def by_name_and_format(
    field: str, declared: Claim | None, id_formats: Mapping[str, str | None], source: str
) -> RefDecision | None:
    """With no stored value to look up: a ref when the field is named for an entity and
    the spec gives it the format of that entity's ids (both ``uuid``), left for the
    verifier to prove (its create writes the id of a record of the target, and the
    stored reference must resolve there)."""
    if declared is None or declared.wire != "string" or declared.format not in ID_FORMATS:
        return None
    found = [t for t in target_names(field) if t in id_formats]
    if not found or id_formats[found[0]] != declared.format:
        return None
    target = found[0]
    return RefDecision(
        "ref", target,
        (Ev("name", f"the name {field!r} names {target}"),
         Ev(source, f"format {declared.format}, the format of {target} ids")),
        "low", candidates=(target,),
        note="ref by name and id format; no stored value of it to look up: verify proves it",
    )  # fmt: skip
