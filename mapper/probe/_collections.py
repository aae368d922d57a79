"""Spec routes grouped into collections: a list route plus its detail route.

``GET /api/cards/`` answering a list of objects and ``GET /api/cards/{id}/``
make the entity ``cards``; the create body says which fields are required and
which are write-only. Every route not consumed here is an operation candidate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ._draft import Claim, Param
from ._errors import Finding
from ._naming import entity_name, is_placeholder, segments
from ._openapi import Body, SpecRoute, SpecRoutes, body_fields
from ._schema import Resolver, SchemaProblem, flatten


@dataclass(frozen=True, slots=True)
class SpecCollection:
    name: str
    path: str
    detail_path: str
    id_param: str
    tag: str | None
    summary: str | None
    fields: dict[str, Claim]
    required: frozenset[str]
    items_key: str  # "" when the list answer is a bare array
    list_keys: tuple[str, ...]
    query: tuple[Param, ...]
    methods: frozenset[str]
    detail_methods: frozenset[str]
    security: tuple[str, ...] | None


def _details(by_path: dict[str, dict[str, SpecRoute]]) -> dict[tuple[str, bool], tuple[str, str]]:
    """(parent stem, trailing slash) -> (detail path, placeholder) for every GET ``…/{x}``."""
    found: dict[tuple[str, bool], tuple[str, str]] = {}
    for candidate, methods in by_path.items():
        stem, _, last = candidate.rstrip("/").rpartition("/")
        if "GET" in methods and is_placeholder(last):
            found.setdefault((stem, candidate.endswith("/")), (candidate, last[1:-1]))
    return found


def _list_items(body: Body, resolver: Resolver) -> tuple[object, str, tuple[str, ...]] | None:
    """(item schema, items key, envelope keys) of a list answer, or None if not a list."""
    if body.kind != "json":
        return None
    try:
        schema, seen, _ = flatten(body.schema, resolver)
        if schema.get("type") == "array":
            return schema.get("items", {}), "", ()
        props = schema.get("properties") or {}
        for key, prop in props.items():
            inner, _, _ = flatten(prop, resolver, seen)
            if inner.get("type") == "array":
                item, _, _ = flatten(inner.get("items", {}), resolver, seen)
                if item.get("type") == "object" or "properties" in item:
                    return inner.get("items", {}), str(key), tuple(map(str, props))
    except SchemaProblem:
        return None
    return None


def _fields(
    coll_path: str, item: object, create: SpecRoute | None, spec: SpecRoutes
) -> tuple[dict[str, Claim], frozenset[str], list[Finding]]:
    findings: list[Finding] = []
    fields: dict[str, Claim] = {}
    try:
        shown, _ = body_fields(item, spec.resolver, spec.source)
        sent: dict[str, Claim | SchemaProblem] = {}
        required: list[str] = []
        if create is not None and create.request.kind == "json":
            sent, required = body_fields(create.request.schema, spec.resolver, spec.source)
    except SchemaProblem as problem:
        return {}, frozenset(), [Finding(coll_path, problem.code, problem.detail, "GET")]
    for name, claim in [*shown.items(), *((n, c) for n, c in sent.items() if n not in shown)]:
        if isinstance(claim, SchemaProblem):
            if claim.code == "polymorphic":
                fields[name] = Claim(spec.source, type="json", wire="object", detail=claim.detail)
            else:
                findings.append(
                    Finding(coll_path, claim.code, f"field {name} {claim.detail}", "GET")
                )
            continue
        if name not in shown:
            claim = replace(claim, write_only=True)
        fields[name] = claim
    required_set = frozenset(n for n in required if n in fields and not fields[n].read_only)
    fields = {n: replace(c, required=n in required_set) for n, c in fields.items()}
    return fields, required_set, findings


def group(spec: SpecRoutes) -> tuple[list[SpecCollection], list[SpecRoute], list[Finding]]:
    by_path: dict[str, dict[str, SpecRoute]] = {}
    for route in spec.routes:
        by_path.setdefault(route.path, {})[route.method] = route
    collections: list[SpecCollection] = []
    consumed: set[tuple[str, str]] = set()
    findings: list[Finding] = []
    names: set[str] = set()
    details = _details(by_path)
    for path, methods in by_path.items():
        listing = methods.get("GET")
        detail = details.get((path.rstrip("/"), path.endswith("/"))) if listing else None
        found = _list_items(listing.response, spec.resolver) if listing and detail else None
        name = entity_name(path)
        if listing is None or detail is None or found is None or name is None:
            continue
        if any(is_placeholder(s) for s in segments(path)):
            findings.append(
                Finding(path, "nested-collection", "listed only under another record", "GET")
            )
            consumed.add(("GET", path))
            continue
        detail_path, id_param = detail
        detail_routes = by_path[detail_path]
        item, items_key, keys = found
        shown = detail_routes["GET"].response
        if shown.kind == "json":
            item = shown.schema
        fields, required, problems = _fields(path, item, methods.get("POST"), spec)
        findings.extend(problems)
        unique = name
        while unique in names:
            unique += "_"
        names.add(unique)
        collections.append(
            SpecCollection(
                name=unique, path=path, detail_path=detail_path, id_param=id_param,
                tag=listing.tag, summary=listing.summary, fields=fields, required=required,
                items_key=items_key, list_keys=keys,
                query=tuple(p for p in listing.params if p.where == "query"),
                methods=frozenset(methods), detail_methods=frozenset(detail_routes),
                security=listing.security,
            )
        )  # fmt: skip
        consumed |= {(m, path) for m in ("GET", "POST") if m in methods}
        consumed |= {(m, detail_path) for m in ("GET", "PUT", "PATCH", "DELETE")}
    rest = [r for r in spec.routes if (r.method, r.path) not in consumed]
    return collections, rest, findings
