"""Which schema describes one record, and which fields are expandable references.

The list's item schema describes a record as the list answers it. A detail
answer may be a union with a "deleted" stub (Stripe: ``anyOf[customer,
deleted_customer]``); the live branch of such a union is the record. An
expandable field (Stripe: ``anyOf[string, $ref customer]`` with
``x-expansionResources``) is the target's id unless the caller asks for it
expanded; the spec's own ``x-expansionResources`` names the target.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._schema import Resolver, SchemaProblem, flatten, object_properties


@dataclass(frozen=True, slots=True)
class Expansion:
    """An expandable field: ``ref`` (one id) or ``list<ref>``, and the schemas it expands to."""

    kind: str
    targets: tuple[str, ...]
    description: str | None = None


def _flat(node: Any, resolver: Resolver) -> dict[str, Any] | None:
    try:
        return flatten(node, resolver)[0]
    except SchemaProblem:
        return None


def is_deleted_stub(node: Any, resolver: Resolver) -> bool:
    """An object whose ``deleted`` property is always true (what a delete answers)."""
    flat = _flat(node, resolver)
    deleted = (flat or {}).get("properties", {}).get("deleted")
    flag = _flat(deleted, resolver) if isinstance(deleted, Mapping) else None
    return flag is not None and (flag.get("enum") == [True] or flag.get("const") is True)


def live_branch(node: Any, resolver: Resolver) -> Any:
    """The one branch of a union that is not a deleted stub; else `node` itself."""
    try:
        schema, _ = resolver.deref(node, ())
    except SchemaProblem:
        return node
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            live = [b for b in branches if not is_deleted_stub(b, resolver)]
            if len(live) == 1 and len(live) < len(branches):
                return live[0]
    return node


def _has_fields(node: Any, resolver: Resolver) -> bool:
    try:
        return bool(object_properties(node, resolver)[0])
    except SchemaProblem:
        return False


def record_schema(item: Any, detail: Any, resolver: Resolver) -> Any:
    """The list's item schema when it is an object with fields; else the detail answer's."""
    item = live_branch(item, resolver)
    if _has_fields(item, resolver) or detail is None:
        return item
    return live_branch(detail, resolver)


def schema_ref(node: Any) -> str | None:
    """The ``$ref`` a record schema is named by, if it is one."""
    ref = node.get("$ref") if isinstance(node, Mapping) else None
    return ref if isinstance(ref, str) else None


def _expansion(node: Any, resolver: Resolver) -> tuple[str, ...] | None:
    try:
        schema, _ = resolver.deref(node, ())
    except SchemaProblem:
        return None
    resources = schema.get("x-expansionResources")
    branches = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(resources, Mapping) or not isinstance(branches, list):
        return None
    if not any((_flat(b, resolver) or {}).get("type") == "string" for b in branches):
        return None  # not an id unless expanded: an embedded object, not a reference
    listed = resources.get("oneOf") or resources.get("anyOf") or []
    refs = [r["$ref"] for r in listed if isinstance(r, Mapping) and isinstance(r.get("$ref"), str)]
    live = tuple(r for r in refs if not is_deleted_stub({"$ref": r}, resolver))
    return live or None


def expansions(item: Any, resolver: Resolver) -> dict[str, Expansion]:
    """Every expandable field of a record schema, by wire name."""
    try:
        props, _, _ = object_properties(item, resolver)
    except SchemaProblem:
        return {}
    found: dict[str, Expansion] = {}
    for name, node in props.items():
        raw = node if isinstance(node, Mapping) else {}
        described = raw.get("description")
        description = described if isinstance(described, str) and described else None
        if (targets := _expansion(node, resolver)) is not None:
            found[str(name)] = Expansion("ref", targets, description)
        elif raw.get("type") == "array" and (targets := _expansion(raw.get("items"), resolver)):
            found[str(name)] = Expansion("list<ref>", targets, description)
    return found
