"""Spec routes grouped into collections: a list route plus its detail route.

``GET /api/cards/`` answering a list of objects and ``GET /api/cards/{id}/``
make the entity ``cards``; the create body says which fields are required and
which are write-only. The list's items describe a record (the detail answer
only when they do not: see `_shapes`). A write whose body the runtime cannot
send (a form) is not consumed; every route not consumed here is an operation
candidate.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .._draft import Claim, Param
from .._errors import Finding
from .._naming import entity_name, is_placeholder, segments
from ._bodies import sendable
from ._collnames import distinct_names
from ._openapi import Body, SpecRoute, SpecRoutes, body_fields
from ._postlists import post_listing
from ._schema import Resolver, SchemaProblem, flatten, object_properties
from ._shapes import Expansion, expansions, record_schema, schema_ref
from ._writeshape import UNIQUE_KEYWORD, unique_fields, wrapped_body

# Why a field the spec does not mark readOnly is read-only (see `_fields`).
NOT_SENT = "not in the create body"
# Why a writable field is written on create only (see `_create_only`).
NOT_UPDATED = "in the create body, not in the update body"
# Why a field the create body lacks is written on update only (see `_create_only`).
NOT_CREATED = "in the update body, not in the create body"
# Why a field the create body lacks is read-only when that body takes nothing else.
NOT_SENT_CLOSED = (
    "not in the create body, which refuses other properties (additionalProperties: false)"
)


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
    # The methods the runtime can use: a write taking a form body is left out (and
    # left to the operations, which report it).
    methods: frozenset[str]
    detail_methods: frozenset[str]
    security: tuple[str, ...] | None
    # Expandable fields (an id, or the object when asked to expand it), by wire name.
    expands: dict[str, Expansion] = field(default_factory=dict)
    item_ref: str | None = None  # the ``$ref`` naming the record schema
    # One instance of a templated route (``/bins/{bin_id}/records``): which, and how found.
    instance_of: str | None = None
    # A listing made by POST (``/things/filter``): its path and its body's properties.
    list_path: str | None = None
    list_body: tuple[str, ...] = ()
    # The create body requires the id: the client chooses it (a slug, a name).
    id_client: bool = False
    # The key the create answers its record under, when reads answer it bare.
    write_answer: str | None = None
    # The key write bodies are sent under (``{"card": {...}}``), when they are wrapped.
    write_wrap: str | None = None
    # A field kept unique that finds a record whose create answered none (no body, no
    # Location, no id of the client's).
    find_by: str | None = None


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
        shown: dict[str, Claim | SchemaProblem]
        shown, _ = body_fields(item, spec.resolver, spec.source)
        for name, found in expansions(item, spec.resolver).items():
            what = "an id" if found.kind == "ref" else "ids"
            detail = f"{what}, or the expanded objects when asked to expand"
            shown[name] = Claim(spec.source, type="json", wire="object",
                                description=found.description, detail=detail)  # fmt: skip
        sent: dict[str, Claim | SchemaProblem] = {}
        required: list[str] = []
        closed = False
        if create is not None and create.request.kind in ("json", "form"):
            sent, required = body_fields(create.request.schema, spec.resolver, spec.source)
            closed = _closed(create.request.schema, spec.resolver)
    except SchemaProblem as problem:
        return {}, frozenset(), [Finding(coll_path, problem.code, problem.detail, "GET")]
    # Each claim is rebuilt once, with every change it takes (`replace` is not cheap
    # over the thousand fields of a large spec).
    changed: dict[str, tuple[Claim, dict[str, Any]]] = {}
    for name, claim in [*shown.items(), *((n, c) for n, c in sent.items() if n not in shown)]:
        if isinstance(claim, SchemaProblem):
            if claim.code == "polymorphic":
                polymorphic = Claim(spec.source, type="json", wire="object", detail=claim.detail)
                changed[name] = (polymorphic, {})
            else:
                # The field is dropped, not the list: the entry names the field.
                findings.append(Finding(coll_path, claim.code, f"field {name} {claim.detail}"))
            continue
        changes: dict[str, Any] = {}
        if sent and name not in sent and not claim.read_only:
            # The create body lists what a client may send; what a record shows beyond
            # it (Stripe's `object`, `livemode`, `created`) is the server's to set.
            changes = {"read_only": True, "detail": claim.detail or NOT_SENT}
        elif name not in shown:
            changes = {"write_only": True}
        elif closed and name not in sent and not claim.read_only:
            # The create body refuses every property it does not declare: the
            # upstream manages this one (Prefect's `created`, `updated`).
            changes = {"read_only": True, "detail": NOT_SENT_CLOSED}
        changed[name] = (claim, changes)
    required_set = frozenset(
        n
        for n in required
        if n in changed and not changed[n][1].get("read_only", changed[n][0].read_only)
    )
    for name, (claim, changes) in changed.items():
        fields[name] = replace(claim, **changes, required=name in required_set)
    return fields, required_set, findings


def group(spec: SpecRoutes) -> tuple[list[SpecCollection], list[SpecRoute], list[Finding]]:
    """Collections, the routes left for operations, and what could not be grouped."""
    collections, _, rest, findings = group_all(spec)
    return collections, rest, findings


def group_all(
    spec: SpecRoutes,
) -> tuple[list[SpecCollection], list[SpecCollection], list[SpecRoute], list[Finding]]:
    """As `group`, with the templated collections (``/a/{a_id}/records``) too: each is
    also a ``nested-collection`` finding until its instances are mapped."""
    nested: list[SpecCollection] = []
    by_path: dict[str, dict[str, SpecRoute]] = {}
    for route in spec.routes:
        by_path.setdefault(route.path, {})[route.method] = route
    collections: list[SpecCollection] = []
    consumed: set[tuple[str, str]] = set()
    findings: list[Finding] = []
    details = _details(by_path)
    for path, methods in by_path.items():
        listing = methods.get("GET")
        detail = details.get((path.rstrip("/"), path.endswith("/"))) if listing else None
        found = _list_items(listing.response, spec.resolver) if listing and detail else None
        name = entity_name(path)
        if listing is None or detail is None or found is None or name is None:
            continue
        templated = any(is_placeholder(s) for s in segments(path))
        if templated:
            findings.append(
                Finding(path, "nested-collection", "listed only under another record", "GET")
            )
            consumed.add(("GET", path))
        needed = [p.name for p in listing.params if p.where == "query" and p.required]
        if needed and not templated:
            # A listing that needs a parent's id in its query (Stripe's subscription
            # items need `subscription`) lists only under another record, too.
            detail_text = f"listed only with the query parameter {', '.join(needed)}"
            findings.append(Finding(path, "nested-collection", detail_text, "GET"))
            consumed.add(("GET", path))
            continue
        detail_path, id_param = detail
        detail_routes = by_path[detail_path]
        item, items_key, keys = found
        shown = detail_routes["GET"].response
        item = record_schema(item, shown.schema if shown.kind == "json" else None, spec.resolver)
        # Writes the runtime cannot send (a form body) stay operation candidates.
        listed = frozenset(
            m for m in ("GET", "POST") if m in methods and _sendable(methods[m], spec)
        )  # fmt: skip
        kept: frozenset[str] = frozenset(
            m for m in ("GET", "PUT", "PATCH", "DELETE")
            if m in detail_routes and _sendable(detail_routes[m], spec)
        )  # fmt: skip
        if not kept & {"PUT", "PATCH"} and _updates_by_post(detail_routes, item, spec):
            kept |= {"POST"}
        create = methods.get("POST") if "POST" in listed else None
        wrap = _wrap(create, item, spec.resolver)
        if create is not None and wrap is not None:
            create = replace(create, request=Body("json", wrap[1]))
        fields, required, problems = _fields(path, item, create, spec)
        fields = _create_only(fields, create, _update_route(detail_routes, kept), wrap, spec)
        if not templated:
            findings.extend(problems)
        client_id = create is not None and id_param in required
        find_by = None
        if create is not None and not client_id and _answers_nothing(create):
            find_by = _findable(item, fields, spec.resolver)
        if create is not None and not client_id and _answers_nothing(create) and not find_by:
            # Nothing would tell which record the create made: no body, no Location, no
            # id of the client's, no value kept unique. Left out, with the reason.
            listed -= {"POST"}
            consumed.add(("POST", path))
            why = ("the create answers no record, no Location, and the client sends no id "
                   f"and no field the spec marks unique ({UNIQUE_KEYWORD})")  # fmt: skip
            findings.append(Finding(path, "no-record-answer", why, "POST"))
        (nested if templated else collections).append(
            SpecCollection(
                name=name, path=path, detail_path=detail_path, id_param=id_param,
                tag=listing.tag, summary=listing.summary, fields=fields, required=required,
                items_key=items_key, list_keys=keys,
                query=tuple(p for p in listing.params if p.where == "query"),
                methods=listed, detail_methods=kept, security=listing.security,
                expands=expansions(item, spec.resolver), item_ref=schema_ref(item),
                id_client=client_id,
                write_answer=_answered_under(create, item, shown, spec.resolver),
                write_wrap=None if wrap is None else wrap[0], find_by=find_by,
            )
        )  # fmt: skip
        if templated:
            continue  # its writes stay operations unless its instances are mapped
        consumed |= {(m, path) for m in listed}
        consumed |= {(m, detail_path) for m in kept}
    for path, methods in by_path.items():
        found_post = _posted(path, methods, by_path, details, collections, spec)
        if found_post is None:
            continue
        coll, problems = found_post
        findings.extend(problems)
        collections.append(coll)
        consumed.add(("POST", path))
        consumed |= {(m, coll.path) for m in coll.methods}
        consumed |= {(m, coll.detail_path) for m in coll.detail_methods}
    names = distinct_names([c.path for c in collections])
    collections = [replace(c, name=names[c.path]) for c in collections]
    rest = [r for r in spec.routes if (r.method, r.path) not in consumed]
    return collections, nested, rest, findings


def _update_route(routes: dict[str, SpecRoute], kept: frozenset[str]) -> SpecRoute | None:
    """The route updates go to: PATCH, else PUT, when the runtime can send it."""
    return next((routes[m] for m in ("PATCH", "PUT") if m in kept), None)


def _create_only(
    fields: dict[str, Claim], create: SpecRoute | None, update: SpecRoute | None,
    wrap: tuple[str, Any] | None, spec: SpecRoutes,
) -> dict[str, Claim]:  # fmt: skip
    """Writable fields the create body has and the update body lacks (Prefect's
    ``FlowCreate`` has ``name``, ``FlowUpdate`` only ``tags``): written on create only.
    And the reverse: a field taken read-only only because the create body lacks it,
    which the update body has (Prefect's ``FlowRunUpdate.infrastructure_pid``), is
    written on update only.

    Only when both bodies are known: an update without a body schema, or one declaring
    no property (an open object), says nothing about which fields it takes."""
    if create is None or update is None or update.request.kind not in ("json", "form"):
        return fields
    schema = update.request.schema
    if wrap is not None:
        shown = frozenset(n for n in fields if n != wrap[0])
        inner = wrapped_body(schema, shown, spec.resolver)
        if inner is None or inner[0] != wrap[0]:
            return fields
        schema = inner[1]
    try:
        sent, _ = body_fields(create.request.schema, spec.resolver, spec.source)
        taken, _ = body_fields(schema, spec.resolver, spec.source)
    except SchemaProblem:
        return fields
    if not sent or not taken:
        return fields
    out: dict[str, Claim] = {}
    for name, claim in fields.items():
        if name in sent and name not in taken and not claim.read_only:
            claim = replace(claim, create_only=True)
        elif name in taken and name not in sent and claim.detail in (NOT_SENT, NOT_SENT_CLOSED):
            # Read-only by inference only (the spec never said so): the update takes it.
            claim = replace(claim, read_only=False, update_only=True, detail=NOT_CREATED)
        out[name] = claim
    return out


def _answered_under(
    create: SpecRoute | None, item: object, shown: Body, resolver: Resolver
) -> str | None:
    """``card`` when the create answers ``{"card": <record>}`` and a read answers it bare."""
    record = schema_ref(item)
    if create is None or record is None or create.response.kind != "json":
        return None
    if shown.kind == "json" and schema_ref(shown.schema) != record:
        return None  # reads are enveloped too: the upstream-wide envelope says where
    try:
        answer, _, _ = flatten(create.response.schema, resolver)
    except SchemaProblem:
        return None
    props = answer.get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return None
    ((key, value),) = props.items()
    return str(key) if schema_ref(value) == record else None


def _wrap(create: SpecRoute | None, item: object, resolver: Resolver) -> tuple[str, Any] | None:
    """(key, record body) when the create body wraps the record under one key."""
    if create is None or create.request.kind != "json":
        return None
    try:
        shown, _, _ = object_properties(item, resolver)
    except SchemaProblem:
        return None
    return wrapped_body(create.request.schema, shown, resolver)


def _findable(item: object, fields: dict[str, Claim], resolver: Resolver) -> str | None:
    """A field the spec marks unique that every create sends (required) and records show.

    An optional one would leave a create sent without it unfindable once made."""
    usable = [
        n for n in unique_fields(item, resolver)
        if n in fields and fields[n].required and not fields[n].write_only
    ]  # fmt: skip
    return usable[0] if usable else None


def _answers_nothing(route: SpecRoute) -> bool:
    return route.response.kind == "none" and not route.location


def _posted(
    path: str,
    methods: dict[str, SpecRoute],
    by_path: dict[str, dict[str, SpecRoute]],
    details: dict[tuple[str, bool], tuple[str, str]],
    known: list[SpecCollection],
    spec: SpecRoutes,
) -> tuple[SpecCollection, list[Finding]] | None:
    """A collection listed by POST (see `_postlists`), when nothing lists it by GET."""
    listing = post_listing(path, methods, spec.resolver)
    if listing is None:
        return None
    parent = listing.parent
    detail = details.get((parent, False)) or details.get((parent, True))
    found = _list_items(listing.route.response, spec.resolver)
    name = entity_name(parent)
    own = next((p for p in (parent + "/", parent) if p in by_path), parent + "/")
    if detail is None or found is None or name is None or any(c.path == own for c in known):
        return None
    detail_path, id_param = detail
    detail_routes = by_path[detail_path]
    item, items_key, keys = found
    shown = detail_routes["GET"].response
    item = record_schema(item, shown.schema if shown.kind == "json" else None, spec.resolver)
    creates = by_path.get(own, {})
    listed = frozenset(m for m in ("POST",) if m in creates and _sendable(creates[m], spec))
    kept = frozenset(
        m for m in ("GET", "PUT", "PATCH", "DELETE")
        if m in detail_routes and _sendable(detail_routes[m], spec)
    )  # fmt: skip
    create = creates.get("POST") if listed else None
    fields, required, problems = _fields(own, item, create, spec)
    fields = _create_only(fields, create, _update_route(detail_routes, kept), None, spec)
    route = listing.route
    coll = SpecCollection(
        name=name, path=own, detail_path=detail_path, id_param=id_param, tag=route.tag,
        summary=route.summary, fields=fields, required=required, items_key=items_key,
        list_keys=keys, query=(), methods=listed, detail_methods=kept, security=route.security,
        expands=expansions(item, spec.resolver), item_ref=schema_ref(item),
        list_path=path, list_body=listing.body,
        # As for a GET listing: a create that must carry the id names it itself.
        id_client="POST" in listed and id_param in required,
    )  # fmt: skip
    return coll, problems


def _closed(schema: object, resolver: Resolver) -> bool:
    """Whether a body schema refuses properties it does not declare."""
    try:
        flat, _, _ = flatten(schema, resolver)
    except SchemaProblem:
        return False
    return flat.get("additionalProperties") is False and bool(flat.get("properties"))


def _sendable(route: SpecRoute, spec: SpecRoutes) -> bool:
    return route.method == "GET" or sendable(route.request.kind, spec.body_encoding)


def _updates_by_post(routes: dict[str, SpecRoute], item: object, spec: SpecRoutes) -> bool:
    """A POST on the record's own path, with a body, answering the record: an update.

    Stripe updates this way (``POST /v1/customers/{customer}``); the answer naming the
    record's own schema tells it apart from an action posted to the record.
    """
    post = routes.get("POST")
    if post is None or post.request.kind not in ("json", "form"):
        return False
    if not _sendable(post, spec) or post.response.kind != "json":
        return False
    answered = schema_ref(post.response.schema)
    return answered is not None and answered == schema_ref(item)
