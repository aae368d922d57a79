"""JSON Schema (as OpenAPI 3.0/3.1 writes it) -> claims in the protocol vocabulary.

Only one level is read: an entity's properties, and for each property its own
shape. Nested objects become ``json`` without descending, so a huge or deeply
recursive spec costs no more than its top level; a property that refers back
to a schema being read is reported as recursive instead of followed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._draft import Claim

_MAX_REF_CHAIN = 32
# dict first: a spec is parsed JSON, and the abstract class alone is slow to check
_MAPPINGS = (dict, Mapping)


class SchemaProblem(Exception):
    def __init__(self, code: str, detail: str) -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"{code}: {detail}")


class Resolver:
    """Local ``$ref`` resolution (``#/components/...``); remote refs are not fetched."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc = doc

    def lookup(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise SchemaProblem("no-schema", f"external reference {ref} is not fetched")
        node: Any = self.doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, _MAPPINGS) or part not in node:
                raise SchemaProblem("no-schema", f"unresolvable reference {ref}")
            node = node[part]
        return node

    def deref(self, node: Any, seen: tuple[str, ...]) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Follow ``$ref``s; `seen` is the chain of refs being read, for cycle checks."""
        for _ in range(_MAX_REF_CHAIN):
            if not isinstance(node, _MAPPINGS):
                return {}, seen
            ref = node.get("$ref")
            if not isinstance(ref, str):
                return dict(node), seen
            if ref in seen:
                raise SchemaProblem("recursive-schema", f"refers back to {ref.rsplit('/', 1)[-1]}")
            seen = (*seen, ref)
            node = self.lookup(ref)
        raise SchemaProblem("recursive-schema", "reference chain too long")


def _is_null(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    enum = schema.get("enum")
    return kind == "null" or (isinstance(enum, list) and enum in ([None], [""], ["", None]))


def flatten(
    node: Any, resolver: Resolver, seen: tuple[str, ...] = ()
) -> tuple[dict[str, Any], tuple[str, ...], bool]:
    """One schema with refs followed, ``allOf`` merged and nullable unions unwrapped."""
    schema, seen = resolver.deref(node, seen)
    nullable = bool(schema.get("nullable"))
    kinds = schema.get("type")
    if isinstance(kinds, list):
        real = [k for k in kinds if k != "null"]
        nullable = nullable or "null" in kinds
        if len(real) > 1:
            raise SchemaProblem("polymorphic", "one of types " + ", ".join(map(str, real)))
        schema = {**schema, "type": real[0]} if real else {**schema, "type": "null"}
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if not isinstance(branches, list):
            continue
        flat = [flatten(b, resolver, seen) for b in branches]
        real_branches = [f for f in flat if not _is_null(f[0])]
        nullable = nullable or len(real_branches) < len(flat) or any(f[2] for f in flat)
        if len(real_branches) != 1:
            raise SchemaProblem("polymorphic", f"{key} of {len(real_branches)} shapes")
        inner, seen, _ = real_branches[0]
        schema = {**{k: v for k, v in schema.items() if k != key}, **inner}
    parts = schema.get("allOf")
    if isinstance(parts, list):
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        props: dict[str, Any] = {}
        required: list[str] = []
        for part in parts:
            inner, seen, inner_null = flatten(part, resolver, seen)
            nullable = nullable or inner_null
            props.update(inner.get("properties") or {})
            required.extend(inner.get("required") or [])
            merged = {**inner, **merged}
        if props:
            merged["properties"] = {**props, **(schema.get("properties") or {})}
            merged["required"] = [*required, *(schema.get("required") or [])]
        schema = merged
    return schema, seen, nullable


def _string_claim(schema: Mapping[str, Any], base: dict[str, Any]) -> Claim:
    fmt = schema.get("format")
    enum = [v for v in schema.get("enum") or [] if v not in (None, "")]
    if enum:
        return Claim(type="enum", values=tuple(enum), **base)
    if fmt == "date-time":
        return Claim(type="datetime", **base)
    if fmt == "date":
        return Claim(type="string", day_key=True, max=10, **base)
    if fmt in ("binary", "byte"):
        return Claim(type="binary", **base)
    max_length = schema.get("maxLength")
    size = max_length if isinstance(max_length, int) and max_length >= 0 else None
    return Claim(type="string", max=size, **base)


def claim_of(
    node: Any, resolver: Resolver, source: str, seen: tuple[str, ...] = (),
    description: str | None = None,
) -> Claim:  # fmt: skip
    """The claim a spec makes about one property; `SchemaProblem` when it cannot say.
    `description` is used where the schema has none."""
    schema, seen, nullable = flatten(node, resolver, seen)
    base: dict[str, Any] = {
        "source": source,
        "read_only": bool(schema.get("readOnly")),
        "write_only": bool(schema.get("writeOnly")),
        "nullable": nullable,
        "description": schema.get("description") or schema.get("title") or description,
        "format": schema.get("format") if isinstance(schema.get("format"), str) else None,
    }
    kind = schema.get("type")
    if "const" in schema and schema["const"] is not None:
        return Claim(type="enum", values=(schema["const"],), wire=str(kind or ""), **base)
    if kind == "string" or (kind is None and "enum" in schema):
        return _string_claim(schema, {**base, "wire": "string"})
    if kind in ("integer", "number"):
        enum = [v for v in schema.get("enum") or [] if v is not None]
        if enum:
            return Claim(type="enum", values=tuple(enum), wire=kind, **base)
        return Claim(type="number", wire=kind, **base)
    if kind == "boolean":
        return Claim(type="boolean", wire="boolean", **base)
    if kind == "array":
        items, _, _ = flatten(schema.get("items", {}), resolver, seen)
        item_kind = items.get("type")
        enum = [v for v in items.get("enum") or [] if v not in (None, "")]
        if enum:
            return Claim(type="list<enum>", values=tuple(enum), wire="array:enum", **base)
        if item_kind in ("string", "integer") and not items.get("format"):
            # Ids or free text: only a lookup can tell (see `_refs`).
            return Claim(type="json", wire=f"array:{item_kind}", **base)
        return Claim(type="json", wire=f"array:{item_kind or 'any'}", **base)
    return Claim(type="json", wire="object", **base)


def object_properties(
    node: Any, resolver: Resolver, seen: tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[str], tuple[str, ...]]:
    """The properties and required names of an object schema (refs and allOf followed)."""
    schema, seen, _ = flatten(node, resolver, seen)
    props = schema.get("properties")
    required = schema.get("required")
    return (
        dict(props) if isinstance(props, Mapping) else {},
        [r for r in required or [] if isinstance(r, str)],
        seen,
    )
