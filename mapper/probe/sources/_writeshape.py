"""How a spec's writes are shaped: bodies wrapped under a key, and values kept unique.

A create body that is an object of exactly one required property, itself an object
of properties, which no record shows (Rails' ``{"card": {...}}``), is a wrapped write:
the key is ``write.wrap`` and the fields are the inner object's. A record property
marked ``x-unique: true`` is kept unique by the upstream (OpenAPI and JSON Schema have
no standard keyword for a value unique across a collection; the verifier proves it
before anything relies on it): a create answered with no record can be found by it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ._schema import Resolver, SchemaProblem, flatten, object_properties

UNIQUE_KEYWORD = "x-unique"


def wrapped_body(schema: Any, shown: Collection[str], resolver: Resolver) -> tuple[str, Any] | None:
    """(key, inner schema) when a write body wraps the record's fields under one key."""
    try:
        props, required, seen = object_properties(schema, resolver)
        if len(props) != 1:
            return None
        ((key, inner),) = props.items()
        if key not in required or key in shown:
            return None
        flat, _, _ = flatten(inner, resolver, seen)
    except SchemaProblem:
        return None
    if flat.get("type", "object") != "object" or not isinstance(flat.get("properties"), dict):
        return None
    return str(key), inner


def unique_fields(item: Any, resolver: Resolver) -> list[str]:
    """The record properties the spec marks unique (``x-unique: true``), in its order."""
    try:
        props, _, seen = object_properties(item, resolver)
    except SchemaProblem:
        return []
    found = []
    for name, node in props.items():
        try:
            flat, _, _ = flatten(node, resolver, seen)
        except SchemaProblem:
            continue
        if flat.get(UNIQUE_KEYWORD) is True or (
            isinstance(node, dict) and node.get(UNIQUE_KEYWORD) is True
        ):
            found.append(str(name))
    return found
