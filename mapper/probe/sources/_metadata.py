"""A metadata API: the upstream lists its collections, and each collection's fields.

Headless CMSs describe their own data model through their API: one answer lists
every collection (a list of objects, each naming one, with its table's schema and
its editor's meta), another lists the fields of one collection (a list of objects,
each naming a field and its type, with the column's schema and the editor's
meta). A `Convention` names such a shape: where its listings are tried (relative
to the base URL), how an answer of that shape is told apart, and where a
collection's records are then looked for. A listing counts only when its answer
has the shape; a records route only when it answers a list of records.

What the metadata says becomes claims with the evidence source ``metadata``: the
column type (day keys for dates), the select interface's choices, required, max
length, read-only (the primary key, values the upstream fills itself), and
many-to-one relations as refs. Not mapped, each with its reason: collections the
metadata flags as the system's own, collections without a table, fields without
a column (one-to-many and many-to-many lists the upstream derives, presentation
fields), and fields the metadata hides or hashes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._draft import Claim, Param
from .._errors import Finding
from ..live import envelope_of
from ._collections import SpecCollection

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

SOURCE = "metadata"


@dataclass(frozen=True, slots=True)
class Convention:
    """One shape of metadata API, and where to look for it."""

    name: str
    # Candidate paths of the collection listing, relative to the base URL.
    listings: tuple[str, ...]
    # The key of the answer holding the list, and of each item naming a collection.
    envelope: str
    collection_key: str
    # Keys an item carries besides its name (the table's schema, the editor's meta).
    item_keys: tuple[str, ...]
    # Dotted path of the flag marking the system's own collections.
    system_flag: str
    # The field listing of one collection, and the keys of each field item.
    fields: str
    field_key: str
    type_key: str
    # Candidate record routes of one collection, tried in order.
    records: tuple[str, ...]
    # Paging parameters the record routes take, confirmed by the live size probe.
    query: tuple[str, ...] = ()
    # The filter dialect the record routes are tried in; declared only where the
    # answers select exactly what the protocol's filter selects.
    dialect: str | None = None
    # The relation listing of one collection: each item names its `field` and, at
    # `on_delete`, what the database does to it when the related record goes.
    relations: str | None = None
    on_delete: str = "schema.on_delete"


# A list under `data` of {collection, meta, schema}; fields under `data` of
# {field, type, schema, meta}; records under `data` at `/items/{collection}`.
COLLECTIONS_AND_FIELDS = Convention(
    name="collections and fields under data",
    listings=("/collections",),
    envelope="data",
    collection_key="collection",
    item_keys=("meta", "schema"),
    system_flag="meta.system",
    fields="/fields/{collection}",
    field_key="field",
    type_key="type",
    records=("/items/{collection}",),
    query=("limit", "offset"),
    dialect="directus",
    relations="/relations/{collection}",
)
# A foreign key's ON DELETE -> the format's upstreamOnDelete (candidates to prove).
ON_DELETE = {"SET NULL": "set-null", "CASCADE": "cascade", "RESTRICT": "restrict",
             "NO ACTION": "restrict"}  # fmt: skip
CONVENTIONS = (COLLECTIONS_AND_FIELDS,)

# Column types -> (protocol type, wire kind).
_TYPES: dict[str, tuple[str, str]] = {
    "string": ("string", "string"), "text": ("string", "string"), "uuid": ("string", "string"),
    "time": ("string", "string"), "integer": ("number", "integer"),
    "bigInteger": ("number", "integer"), "float": ("number", "number"),
    "decimal": ("number", "number"), "boolean": ("boolean", "boolean"),
    "dateTime": ("datetime", "string"), "timestamp": ("datetime", "string"),
    "json": ("json", "object"), "csv": ("json", "array:string"),
}  # fmt: skip
# Values the upstream fills itself (the metadata's `special`), and at which write: a
# value sent at the other write is stored as sent.
MANAGED: dict[str, str] = {
    "date-created": "create", "user-created": "create", "role-created": "create",
    "date-updated": "update", "user-updated": "update", "role-updated": "update",
}  # fmt: skip


@dataclass(slots=True)
class Metadata:
    """What a metadata API gave: collections to map, what is not mapped, and why."""

    convention: Convention | None = None
    listing: str | None = None
    collections: list[SpecCollection] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # collection -> fields not mapped: dropped from the samples too
    skipped: dict[str, set[str]] = field(default_factory=dict)
    # collection -> field -> the raw field item, for the later steps
    definitions: dict[str, dict[str, Mapping[str, Any]]] = field(default_factory=dict)
    # collection -> field -> what the upstream does to it when its target is deleted
    on_delete: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def read(self) -> bool:
        return self.convention is not None


def at(node: Any, dotted: str) -> Any:
    """The value at a dotted path of a metadata item; None when any step is missing."""
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def _items(answer: Exchange, convention: Convention, key: str) -> list[Mapping[str, Any]] | None:
    """The listed objects when the answer has the convention's shape, else None."""
    body = answer.body if answer.ok and answer.kind == "json" else None
    listed = body.get(convention.envelope) if isinstance(body, Mapping) else None
    if not isinstance(listed, list) or not listed:
        return None
    if not all(isinstance(i, Mapping) and isinstance(i.get(key), str) for i in listed):
        return None
    return list(listed)


def _is_listing(items: list[Mapping[str, Any]], convention: Convention) -> bool:
    return all(all(k in i for k in convention.item_keys) for i in items)


def read_metadata(client: ProbeClient) -> Metadata:
    """The first convention whose listing answers in its shape; an empty result if none."""
    for convention in CONVENTIONS:
        for listing in convention.listings:
            items = _items(client.get(listing), convention, convention.collection_key)
            if items is not None and _is_listing(items, convention):
                return _read(client, convention, listing, items)
    return Metadata()


def _read(
    client: ProbeClient, convention: Convention, listing: str, items: list[Mapping[str, Any]]
) -> Metadata:
    found = Metadata(convention, listing)
    detail = f"the API's own listing of its collections ({convention.name}), not data"
    found.findings.append(Finding(listing, "spec-document", detail, "GET"))
    names = [str(i[convention.collection_key]) for i in items]
    system = {n for n, i in zip(names, items, strict=True) if at(i, convention.system_flag) is True}
    tables = {n for n, i in zip(names, items, strict=True) if i.get("schema") is not None}
    candidates = [n for n in sorted(names) if n not in system and n in tables]
    for name in sorted(names):
        if name in system:
            where = convention.records[0].format(collection=name)
            why = f"{name} is flagged {convention.system_flag} by the metadata: the system's own"
            found.findings.append(Finding(where, "system-collection", why, "GET"))
        elif name not in tables:
            where = convention.records[0].format(collection=name)
            why = f"{name} has no table (schema null in the metadata): a folder of collections"
            found.findings.append(Finding(where, "no-schema", why, "GET"))
    for name in candidates:
        _collection(client, convention, name, set(candidates), found)
    return found


def _collection(
    client: ProbeClient, convention: Convention, name: str, mapped: set[str], found: Metadata
) -> None:
    where = convention.fields.format(collection=name)
    fields = _items(client.get(where), convention, convention.field_key)
    path = _records_route(client, convention, name)
    if path is None:
        tried = ", ".join(r.format(collection=name) for r in convention.records)
        why = f"no records route of {name} answered a list (tried {tried})"
        found.findings.append(Finding(where, "not-found", why, "GET"))
        return
    if fields is None:
        found.findings.append(Finding(where, "no-schema", f"the fields of {name}", "GET"))
        return
    raw = {str(f[convention.field_key]): f for f in fields}
    found.definitions[name] = raw
    found.on_delete[name] = _on_delete(client, convention, name)
    claims: dict[str, Claim] = {}
    ident = "id"
    for wire, spec in raw.items():
        if at(spec, "schema.is_primary_key") is True:
            ident = wire
        claim = claim_of(spec, convention, mapped)
        if isinstance(claim, Claim):
            claims[wire] = claim
            if claim.type == "string" and claim.entity is None and claim.detail:
                found.notes.append(f"entities.{name}.fields.{wire}: {claim.detail}")
        else:
            found.skipped.setdefault(name, set()).add(wire)
            found.findings.append(Finding(path, claim[0], f"field {wire}: {claim[1]}"))
    required = frozenset(n for n, c in claims.items() if c.required and not c.read_only)
    query = tuple(
        Param(p, "query", Claim(SOURCE, type="number", wire="integer")) for p in convention.query
    )
    found.collections.append(
        SpecCollection(
            name=name, path=path, detail_path=path + "/{" + ident + "}", id_param=ident,
            tag=None, summary=None, fields=claims, required=required,
            items_key=convention.envelope, list_keys=(convention.envelope,), query=query,
            methods=frozenset({"GET", "POST"}),
            detail_methods=frozenset({"GET", "PATCH", "DELETE"}), security=None,
        )
    )  # fmt: skip


def _on_delete(client: ProbeClient, convention: Convention, name: str) -> dict[str, str]:
    if convention.relations is None:
        return {}
    answer = client.get(convention.relations.format(collection=name))
    items = _items(answer, convention, convention.field_key) or []
    effects = {str(i[convention.field_key]): ON_DELETE.get(str(at(i, convention.on_delete)))
               for i in items if at(i, "collection") in (None, name)}  # fmt: skip
    return {f: effect for f, effect in effects.items() if effect is not None}


def _records_route(client: ProbeClient, convention: Convention, name: str) -> str | None:
    for template in convention.records:
        path = template.format(collection=name)
        answer = client.get(path, {p: "1" for p in convention.query[:1]})
        if answer.ok and envelope_of(answer.body, answer.content_type) is not None:
            return path
    return None


def claim_of(
    spec: Mapping[str, Any], convention: Convention, mapped: set[str]
) -> Claim | tuple[str, str]:
    """The claim one field item makes, or (reason code, detail) when it is not mapped."""
    kind = str(spec.get(convention.type_key))
    meta: Mapping[str, Any] = spec["meta"] if isinstance(spec.get("meta"), Mapping) else {}
    column: Mapping[str, Any] | None = spec.get("schema")
    column = column if isinstance(column, Mapping) else None
    special = [str(s) for s in meta.get("special") or () if isinstance(s, str)]
    if column is None or kind == "alias":
        what = ", ".join(special) or meta.get("interface") or kind
        return "derived-field", f"no column ({what}): the upstream derives it, nothing is stored"
    if meta.get("hidden") and not column.get("is_primary_key"):
        return "hidden-field", "hidden by the metadata"
    if kind == "hash":
        return "hidden-field", "a hashed value (a password): never read back"
    managed = sorted(set(MANAGED) & set(special))
    sets = tuple(w for w in ("create", "update") if any(MANAGED[m] == w for m in managed))
    auto = bool(column.get("is_primary_key") and column.get("has_auto_increment"))
    nullable = column.get("is_nullable")
    has_default = column.get("default_value") is not None
    required = bool(meta.get("required")) or (nullable is False and not has_default and not auto)
    note = meta.get("note")
    base: dict[str, Any] = {
        "source": SOURCE,
        "required": required and not managed,
        "read_only": bool(managed) or auto,
        "server_sets": sets,
        "nullable": None if nullable is None else bool(nullable),
        "description": note if isinstance(note, str) and note else None,
    }
    if managed:
        base["detail"] = f"filled by the upstream on {' and '.join(sets)} ({', '.join(managed)})"
    target = column.get("foreign_key_table")
    if isinstance(target, str) and target:
        wire = _TYPES.get(kind, ("string", "string"))[1]
        if target in mapped:
            return Claim(type="ref", entity=target, wire=wire, **base)
        kind_of = "number" if wire == "integer" else "string"
        why = f"ids of {target}, which is not mapped"
        return Claim(type=kind_of, wire=wire, **{**base, "detail": base.get("detail") or why})
    if kind == "date":
        return Claim(type="string", day_key=True, max=10, wire="string", **base)
    choices = _choices(meta)
    if choices and kind in ("string", "text", "integer"):
        closed = _enforced(meta, str(spec.get(convention.field_key)), choices)
        return Claim(type="enum", values=choices, closed=closed,
                     wire="string" if kind != "integer" else "integer", **base)  # fmt: skip
    if kind not in _TYPES:
        if kind.startswith("geometry"):
            return Claim(type="json", wire="object", **base)
        return "no-schema", f"a {kind} column"
    protocol, wire = _TYPES[kind]
    size = column.get("max_length") if protocol == "string" else None
    limit = size if isinstance(size, int) and size > 0 else None
    return Claim(type=protocol, wire=wire, max=limit, **base)


def _choices(meta: Mapping[str, Any]) -> tuple[Any, ...]:
    options = meta.get("options")
    listed = options.get("choices") if isinstance(options, Mapping) else None
    if not isinstance(listed, list):
        return ()
    values = [c.get("value") if isinstance(c, Mapping) else c for c in listed]
    return tuple(dict.fromkeys(v for v in values if isinstance(v, (str, int)) and v != ""))


def _enforced(meta: Mapping[str, Any], name: str, choices: tuple[Any, ...]) -> bool:
    """Choices are an editor's hint unless a validation rule of the metadata keeps to them."""
    rule = meta.get("validation")
    allowed = at(rule, f"{name}._in")
    return isinstance(allowed, list) and set(allowed) <= set(choices)


def describe(item: Mapping[str, Any], type_key: str) -> str:
    """What the metadata said of one field, in a few words (never a stored value)."""
    parts = [str(item.get(type_key))]
    special = at(item, "meta.special")
    if isinstance(special, list) and special:
        parts.append("special " + ",".join(map(str, special)))
    target = at(item, "schema.foreign_key_table")
    if isinstance(target, str) and target:
        parts.append(f"references {target}")
    size = at(item, "schema.max_length")
    if isinstance(size, int) and size > 0 and item.get(type_key) in ("string", "text"):
        parts.append(f"max length {size}")
    if at(item, "meta.required") is True:
        parts.append("required")
    if at(item, "schema.is_primary_key") is True:
        parts.append("primary key")
    interface = at(item, "meta.interface")
    if isinstance(interface, str) and at(item, "meta.options.choices"):
        parts.append(f"choices of {interface}")
    return "; ".join(parts)
