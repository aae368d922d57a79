"""PocketBase: its collection schema (``GET /api/collections``) is the spec of every collection.

PocketBase publishes no OpenAPI document, but a superuser may read the
definition of every collection: its type (``base``, ``view``, ``auth``), its
fields with their types, ``required``, ``max``, select ``values`` and
``maxSelect``, relation ``collectionId``, ``cascadeDelete`` and ``hidden``.
Each collection becomes a `SpecCollection` whose claims carry the evidence
source ``pocketbase``; the live samples, detail reads and lookups then run as
for any other spec. The probe asks for the schema only when the upstream's
own answer to ``GET /`` is PocketBase's error envelope ``{data, message,
status}``.

Not mapped, each with its reason: PocketBase's system collections
(``_superusers``, ``_mfas``, ``_otps``, ``_externalAuths``, ``_authOrigins``),
auth collections (accounts: passwords, token keys and verification are
PocketBase's own auth flows), hidden fields and file fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._draft import Claim, Param
from .._errors import Finding
from ._collections import SpecCollection

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

SOURCE = "pocketbase"
SCHEMA_PATH = "/api/collections"
SCHEMA_PAGE_SIZE = 200
MAX_SCHEMA_PAGES = 20
LIST_KEYS = ("items", "page", "perPage", "totalItems", "totalPages")
_TEXT = ("text", "editor", "email", "url")
# The paging parameters every records list takes (PocketBase clamps perPage to 1000).
QUERY = (
    Param("page", "query", Claim(SOURCE, type="number", wire="integer",
                                 description="the page, from 1")),
    Param("perPage", "query", Claim(SOURCE, type="number", wire="integer",
                                    description="records per page, between 1 and 1000")),
)  # fmt: skip


def records_path(name: str) -> str:
    return f"/api/collections/{name}/records"


@dataclass(slots=True)
class Collection:
    """One collection definition as the schema gave it, with its fields by name."""

    id: str
    name: str
    type: str
    system: bool
    fields: dict[str, Mapping[str, Any]]


@dataclass(slots=True)
class Schema:
    """What the schema read gave: collections to map, what is not mapped, and why."""

    collections: list[SpecCollection] = field(default_factory=list)
    definitions: dict[str, Collection] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # collection -> fields not mapped (hidden, file, unknown): dropped from the samples too
    skipped: dict[str, set[str]] = field(default_factory=dict)
    read: bool = False


def looks_like_pocketbase(answer: Exchange | None) -> bool:
    """PocketBase answers every route, ``/`` included, with ``{data, message, status}``."""
    body = answer.body if answer is not None and answer.kind == "json" else None
    return (
        isinstance(body, Mapping)
        and set(body) == {"data", "message", "status"}
        and isinstance(body.get("data"), Mapping)
        and isinstance(body.get("status"), int)
    )


def read_schema(client: ProbeClient) -> Schema:
    """Every collection definition, page by page; a refusal is a finding, not an error."""
    schema = Schema()
    raw: list[Mapping[str, Any]] = []
    for page in range(1, MAX_SCHEMA_PAGES + 1):
        params = {"page": str(page), "perPage": str(SCHEMA_PAGE_SIZE), "sort": "id"}
        answer = client.get(SCHEMA_PATH, params)
        body = answer.body if answer.ok and answer.kind == "json" else None
        items = body.get("items") if isinstance(body, Mapping) else None
        if not isinstance(items, list):
            code = "auth-refused" if answer.status in (401, 403) else "no-schema"
            detail = f"PocketBase's collection schema answered {answer.status or answer.failure}"
            hint = "; it needs a superuser token (--header 'Authorization: <token>')"
            schema.findings.append(Finding(SCHEMA_PATH, code, detail + hint, "GET"))
            return schema
        raw.extend(i for i in items if isinstance(i, Mapping))
        pages = body.get("totalPages") if isinstance(body, Mapping) else None
        if not isinstance(pages, int) or page >= pages:
            break
    schema.read = True
    schema.findings.append(
        Finding(SCHEMA_PATH, "spec-document", "PocketBase's collection schema, not data", "GET")
    )
    definitions = [d for d in map(_definition, raw) if d is not None]
    # Relations resolve to the collections that are mapped; others stay plain ids.
    names = {d.id: d.name for d in definitions if not d.system and d.type in ("base", "view")}
    every = {d.id: d.name for d in definitions}
    for definition in sorted(definitions, key=lambda d: d.name):
        _add(schema, definition, names, every)
    return schema


def _definition(raw: Mapping[str, Any]) -> Collection | None:
    name, ident, kind = raw.get("name"), raw.get("id"), raw.get("type")
    fields = raw.get("fields")
    if not (isinstance(name, str) and isinstance(ident, str) and isinstance(fields, list)):
        return None
    by_name = {str(f["name"]): f for f in fields if isinstance(f, Mapping) and "name" in f}
    return Collection(ident, name, str(kind), bool(raw.get("system")), by_name)


def _add(
    schema: Schema, coll: Collection, names: Mapping[str, str], every: Mapping[str, str]
) -> None:
    path = records_path(coll.name)
    if coll.system:
        detail = f"PocketBase's own {coll.type} collection {coll.name}, not app data"
        schema.findings.append(Finding(path, "system-collection", detail, "GET"))
        return
    if coll.type == "auth":
        detail = (
            f"{coll.name} holds accounts (password, tokenKey, email verification), which "
            "PocketBase manages through its own auth routes; map it by hand if agents need it"
        )
        schema.findings.append(Finding(path, "auth-collection", detail, "GET"))
        return
    if coll.type not in ("base", "view"):
        detail = f"collection {coll.name} of unknown type {coll.type!r}"
        schema.findings.append(Finding(path, "no-schema", detail, "GET"))
        return
    claims: dict[str, Claim] = {}
    for name, spec in coll.fields.items():
        found = claim_of(spec, names)
        if isinstance(found, Claim) and found.type in ("ref", "list<ref>") and not found.entity:
            target = every.get(str(spec.get("collectionId")), "an unknown collection")
            found = Claim(type="string" if found.type == "ref" else "json", wire=found.wire,
                          source=SOURCE, required=found.required,
                          detail=f"relation to {target}, which is not mapped")  # fmt: skip
            schema.notes.append(f"entities.{coll.name}.fields.{name}: ids of {target}, not mapped")
        if isinstance(found, Claim):
            claims[name] = found
        else:
            schema.skipped.setdefault(coll.name, set()).add(name)
            schema.findings.append(Finding(path, found[0], f"field {name}: {found[1]}", "GET"))
    writable = coll.type == "base"
    required = frozenset(n for n, c in claims.items() if c.required and not c.read_only)
    schema.definitions[coll.name] = coll
    schema.collections.append(
        SpecCollection(
            name=coll.name, path=path, detail_path=path + "/{id}", id_param="id", tag=None,
            summary=None, fields=claims, required=required, items_key="items",
            list_keys=LIST_KEYS, query=QUERY,
            methods=frozenset({"GET", "POST"} if writable else {"GET"}),
            detail_methods=frozenset({"GET", "PATCH", "DELETE"} if writable else {"GET"}),
            security=None,
        )
    )  # fmt: skip
    if coll.type == "view":
        schema.notes.append(f"entities.{coll.name}.write: none (pocketbase: a view collection)")


def claim_of(spec: Mapping[str, Any], names: Mapping[str, str]) -> Claim | tuple[str, str]:
    """The claim one field definition makes, or (reason code, detail) when it is not mapped."""
    kind = spec.get("type")
    if spec.get("hidden"):
        return "hidden-field", f"a hidden {kind} field (superusers only)"
    help_text = spec.get("help")
    base: dict[str, Any] = {
        "source": SOURCE,
        "required": bool(spec.get("required")),
        "read_only": bool(spec.get("primaryKey")),
        "description": help_text if isinstance(help_text, str) and help_text else None,
    }
    single = not isinstance(spec.get("maxSelect"), int) or spec["maxSelect"] <= 1
    if kind in _TEXT:
        limit = spec.get("max")
        size = limit if kind == "text" and isinstance(limit, int) and limit > 0 else None
        return Claim(type="string", max=size, wire="string", **base)
    if kind == "number":
        return Claim(type="number", wire="number", **base)
    if kind == "bool":
        return Claim(type="boolean", wire="boolean", **base)
    if kind == "date":
        return Claim(type="datetime", wire="string", **base)
    if kind == "autodate":
        return Claim(type="datetime", wire="string", **{**base, "read_only": True})
    if kind == "select":
        values = tuple(v for v in spec.get("values") or () if isinstance(v, str) and v)
        if not values:
            return "no-schema", "a select field without values"
        if single:
            return Claim(type="enum", values=values, wire="string", **base)
        return Claim(type="list<enum>", values=values, wire="array:enum", **base)
    if kind == "relation":
        target = names.get(str(spec.get("collectionId")))
        if single:
            return Claim(type="ref", entity=target, wire="string", **base)
        return Claim(type="list<ref>", entity=target, wire="array:string", **base)
    if kind in ("json", "geoPoint"):
        return Claim(type="json", wire="object", **base)
    if kind == "file":
        return "binary-request", "a file field, written as a multipart upload"
    return "no-schema", f"a {kind} field"
