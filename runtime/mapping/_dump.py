"""Typed mapping -> document: the exact inverse of the compiler.

`compile_document(dump(m)) == m` for every compiled mapping, and `dump` of a
compiled document is that document normalised: keys in the schema's order,
defaults the compiler fills in left out, except those a reader wants to see in
every file (the id, label, auth, pagination with its `items`, errors, dialect,
a request's `send`, a sort's `desc` where the dialect uses a prefix). A
re-probe therefore writes the same text twice.
"""

from __future__ import annotations

from typing import Any

from ._frozen import thaw
from ._model import (
    DAY_KEY_FORMAT,
    READ_ONLY,
    Auth,
    AuthType,
    Dialect,
    Entity,
    Evidence,
    Feed,
    Field,
    FieldType,
    FilterParam,
    Hook,
    ListSpec,
    Module,
    Operation,
    Pagination,
    ProbeRecord,
    Request,
    Schedule,
    Serve,
    Trigger,
    Upstream,
)
from ._model import Mapping as MappingModel
from ._predicate import dump_predicate
from ._yaml import dump as yaml_text

Doc = dict[str, Any]


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def dump_evidence(items: tuple[Evidence, ...]) -> list[Any]:
    """A plain source name when it simply agrees; `{source, detail}` when it said more."""
    return [e.source if e.detail is None else {"source": e.source, "detail": e.detail}
            for e in items]  # fmt: skip


def declared_type(f: Field) -> tuple[str, tuple[Any, ...]]:
    """The type and values the file declares: an open enum is served as a string (or
    json list) but written as the enum of its candidates."""
    if not f.values_closed and f.candidates:
        kind = FieldType.ENUM if f.type == FieldType.STRING else FieldType.LIST_ENUM
        return kind.value, f.candidates
    return f.type.value, f.values


def dump_field(f: Field) -> Doc:
    kind, values = declared_type(f)
    doc: Doc = {"type": kind}
    if f.source != tuple(p for p in f.name.split(".") if p):
        doc["source"] = _dotted(f.source)
    if f.write_source is not None:
        doc["writeSource"] = _dotted(f.write_source)
    if f.required:
        doc["required"] = True
    if f.read_only:
        doc[READ_ONLY] = True
    if f.server_sets:
        doc["serverSets"] = list(f.server_sets)
    if f.write_only:
        doc["writeOnly"] = True
    if f.create_only:
        doc["createOnly"] = True
    if f.update_only:
        doc["updateOnly"] = True
    if f.nullable is not None:
        doc["nullable"] = f.nullable
    if f.max is not None:
        doc["max"] = f.max
    if values:
        doc["values"] = list(values)
    if not f.values_closed:
        doc["valuesClosed"] = False
    if f.entity is not None:
        doc["entity"] = f.entity
    if f.day_key:
        doc["format"] = DAY_KEY_FORMAT
    if f.normalize:
        doc["normalize"] = list(f.normalize)
    if f.decimals is not None:
        doc["decimals"] = f.decimals
    if f.codec is not None:
        doc["codec"] = f.codec
    if f.on_delete != "restrict":
        doc["onDelete"] = f.on_delete
    if f.upstream_on_delete is not None:
        doc["upstreamOnDelete"] = f.upstream_on_delete
    if f.upstream_checks_ref is not None:
        doc["upstreamChecksRef"] = f.upstream_checks_ref
    if f.description is not None:
        doc["description"] = f.description
    _provenance(doc, f.evidence, f.confidence)
    if f.note is not None:
        doc["note"] = f.note
    return doc


def _provenance(doc: Doc, evidence: tuple[Evidence, ...], confidence: str | None) -> None:
    if evidence:
        doc["evidence"] = dump_evidence(evidence)
    if confidence is not None:
        doc["confidence"] = confidence


def _filter_param(p: FilterParam) -> Any:
    if not p.proven and not p.evidence:
        return p.param
    doc: Doc = {"param": p.param}
    if p.proven:
        doc["proven"] = True
    if p.evidence:
        doc["evidence"] = dump_evidence(p.evidence)
    return doc


def _default_detail(path: str) -> str:
    return path.rstrip("/") + "/{id}" + ("/" if path.endswith("/") else "")


def _entity(e: Entity, dialect: Dialect) -> Doc:
    doc: Doc = {"module": e.module}
    if e.summary is not None:
        doc["summary"] = e.summary
    doc["path"] = e.path
    if e.detail_path != _default_detail(e.path):
        doc["detailPath"] = e.detail_path
    doc["id"] = {"source": _dotted(e.id_source), "type": e.id_type}
    if e.id_client:
        doc["id"]["client"] = True
    if e.label is not None:
        doc["label"] = e.label
    if e.auth:
        doc["auth"] = True
    if e.write_allow:
        doc["writeAllow"] = list(e.write_allow)
    doc["fields"] = {name: dump_field(f) for name, f in e.fields.items()}
    if e.filters:
        doc["filter"] = {
            name: {op: _filter_param(p) for op, p in ops.items()} for name, ops in e.filters.items()
        }
    if e.sort is not None:
        sort: Doc = {"param": e.sort.param}
        # json-server orders descending with a second parameter (`_order`), not a
        # prefix: there the default prefix says nothing and is left out.
        if e.sort.desc != "-" or dialect != Dialect.JSON_SERVER:
            sort["desc"] = e.sort.desc
        if e.sort.separator != ",":
            sort["separator"] = e.sort.separator
        sort["fields"] = list(e.sort.fields)
        if e.sort.proven:
            sort["proven"] = True
        doc["sort"] = sort
    write: Doc = {}
    if not e.write.create:
        write["create"] = False
    if e.write.update != "PATCH":
        write["update"] = e.write.update or False
    if not e.write.delete:
        write["delete"] = False
    if e.write.wrap is not None:
        write["wrap"] = e.write.wrap
    if e.write.answer is not None:
        write["answer"] = _dotted(e.write.answer)
    if e.write.find_by is not None:
        write["findBy"] = e.write.find_by
    if write:
        doc["write"] = write
    _provenance(doc, e.evidence, e.confidence)
    if e.listing is not None:
        doc["list"] = _listing(e.listing)
    return doc


def _request(r: Request) -> Doc:
    return {"method": r.method, "path": r.path, "send": r.send}


def _operation(op: Operation) -> Doc:
    doc: Doc = {"name": op.name}
    if op.description is not None:
        doc["description"] = op.description
    doc["module"] = op.module
    if op.entity is not None:
        doc["entity"] = op.entity
    doc["destructive"] = op.destructive
    if op.read_only:
        doc[READ_ONLY] = True
    if op.idempotent:
        doc["idempotent"] = True
    doc["params"] = {name: dump_field(p) for name, p in op.params.items()}
    if op.applies_when is not None:
        doc["appliesWhen"] = dump_predicate(op.applies_when)
    if op.request is not None:
        doc["request"] = _request(op.request)
    if op.crud is not None:
        crud: Doc = {"action": op.crud.action, "entity": op.crud.entity}
        if op.crud.target is not None:
            crud["target"] = op.crud.target
        if op.crud.set:
            crud["set"] = thaw(op.crud.set)
        if op.crud.filter is not None:
            crud["filter"] = op.crud.filter
        doc["crud"] = crud
    if op.job is not None:
        job: Doc = {"request": _request(op.job.request)}
        if op.job.timeout_seconds is not None:
            job["timeoutSeconds"] = op.job.timeout_seconds
        doc["job"] = job
    if op.response is not None:
        response: Doc = {}
        if op.response.pick:
            response["pick"] = _dotted(op.response.pick)
        if op.response.fields:
            response["fields"] = list(op.response.fields)
        doc["response"] = response
    if op.schedule is not None:
        doc["schedule"] = _schedule(op.schedule)
    _provenance(doc, op.evidence, op.confidence)
    return doc


def _schedule(s: Schedule) -> Doc:
    doc: Doc = {"when": s.when}
    if s.on_missed != "skip":
        doc["onMissed"] = s.on_missed
    if s.approved_by is not None:
        doc["approvedBy"] = s.approved_by
    return doc


def _auth(a: Auth) -> Doc:
    if a.type == AuthType.BEARER:
        return {"type": "bearer", "token": (a.value or "").removeprefix("Bearer ")}
    if a.type == AuthType.BASIC:
        return {"type": "basic", "username": a.username, "password": a.password}
    if a.type in (AuthType.HEADER, AuthType.QUERY):
        return {"type": a.type.value, "name": a.name, "value": a.value}
    return {"type": "none"}


def _pagination(p: Pagination) -> Doc:
    doc: Doc = {"style": p.style.value}
    for key, value in (("page", p.page), ("size", p.size), ("offset", p.offset),
                       ("cursor", p.cursor)):  # fmt: skip
        if value is not None:
            doc[key] = value
    doc["items"] = _dotted(p.items)
    if p.total is not None:
        doc["total"] = _dotted(p.total)
    if p.total_header is not None:
        doc["totalHeader"] = p.total_header
    for key, path in (("next", p.next), ("nextFrom", p.next_from), ("more", p.more)):
        if path is not None:
            doc[key] = _dotted(path)
    if p.max_size is not None:
        doc["maxSize"] = p.max_size
    if p.first_page != 1:
        doc["firstPage"] = p.first_page
    for key, value in (("nextHeader", p.next_header), ("unit", p.unit),
                       ("unitHeader", p.unit_header)):  # fmt: skip
        if value is not None:
            doc[key] = value
    return doc


def _listing(spec: ListSpec) -> Doc:
    doc: Doc = {}
    if spec.method != "GET":
        doc["method"] = spec.method
    if spec.path is not None:
        doc["path"] = spec.path
    if spec.pagination is not None:
        doc["pagination"] = _pagination(spec.pagination)
    if spec.evidence:
        doc["evidence"] = dump_evidence(spec.evidence)
    return doc


def _upstream(u: Upstream) -> Doc:
    doc: Doc = {"baseUrl": u.base_url, "auth": _auth(u.auth)}
    if u.headers:
        doc["headers"] = dict(u.headers)
    doc["pagination"] = _pagination(u.pagination)
    doc["errors"] = u.errors.value
    doc["dialect"] = u.dialect.value
    if u.timeout_seconds != 10.0:
        doc["timeoutSeconds"] = u.timeout_seconds
    envelope: Doc = {}
    if u.item_envelope:
        envelope["item"] = _dotted(u.item_envelope)
    if u.write_envelope is not None:
        envelope["write"] = u.write_envelope
    if envelope:
        doc["envelope"] = envelope
    if u.body_encoding != "json":
        doc["bodyEncoding"] = u.body_encoding
    if u.not_found_status != 404:
        doc["notFoundStatus"] = u.not_found_status
    return doc


def _serve(s: Serve) -> Doc:
    doc: Doc = {}
    if s.auth_mode != "none":
        doc["authMode"] = s.auth_mode
    if s.allowed_origins:
        doc["allowedOrigins"] = list(s.allowed_origins)
    if s.allowed_hosts:
        doc["allowedHosts"] = list(s.allowed_hosts)
    if s.credential_hint is not None:
        doc["credentialHint"] = s.credential_hint
    if s.approvals != "host":
        doc["approvals"] = s.approvals
    if s.conventions:
        doc["conventions"] = dict(s.conventions)
    limits: Doc = {}
    if s.rate_limits.data != 1200:
        limits["data"] = s.rate_limits.data
    if s.rate_limits.ops != 300:
        limits["ops"] = s.rate_limits.ops
    if limits:
        doc["rateLimits"] = limits
    if s.scan_limit != 10_000:
        doc["scanLimit"] = s.scan_limit
    if s.triggers:
        doc["triggers"] = [_trigger(t) for t in s.triggers]
    if s.feed is not None:
        doc["feed"] = _feed(s.feed)
    if s.hooks:
        doc["hooks"] = {name: _hook(h) for name, h in s.hooks.items()}
    if s.time_zone != "UTC":
        doc["timeZone"] = s.time_zone
    return doc


def _feed(f: Feed) -> Doc:
    doc: Doc = {"entities": list(f.entities)}
    if f.interval != 60:
        doc["interval"] = f.interval
    if f.budget != 60:
        doc["budget"] = f.budget
    return doc


def _hook(h: Hook) -> Doc:
    doc: Doc = {"scheme": h.scheme, "secret": h.secret, "event": h.event}
    if h.payload:
        doc["payload"] = list(h.payload)
    if h.capability is not None:
        doc["capability"] = h.capability
    if h.tolerance != 300:
        doc["tolerance"] = h.tolerance
    if h.header is not None:
        doc["header"] = h.header
    if h.encoding != "hex":
        doc["encoding"] = h.encoding
    if h.prefix:
        doc["prefix"] = h.prefix
    return doc


def _trigger(t: Trigger) -> Doc:
    doc: Doc = {"type": t.type, "entity": t.entity, "filter": t.filter}
    if t.capability is not None:
        doc["capability"] = t.capability
    if t.payload:
        doc["payload"] = list(t.payload)
    if t.dedup_key:
        doc["dedupKey"] = list(t.dedup_key)
    return doc


def _module(m: Module) -> Doc:
    return {"name": m.name} if m.summary is None else {"name": m.name, "summary": m.summary}


def _probe(p: ProbeRecord) -> Doc:
    doc: Doc = {}
    if p.tool is not None:
        doc["tool"] = p.tool
    if p.sources is not None:
        doc["sources"] = list(p.sources)
    if p.notes is not None:
        doc["notes"] = list(p.notes)
    return doc


def dump(mapping: MappingModel) -> Doc:
    """The mapping as a document the loader compiles back to an equal mapping."""
    app: Doc = {"id": mapping.app.id}
    if mapping.app.name is not None:
        app["name"] = mapping.app.name
    if mapping.app.version is not None:
        app["version"] = mapping.app.version
    doc: Doc = {"format": mapping.format, "app": app, "upstream": _upstream(mapping.upstream)}
    doc["modules"] = [_module(m) for m in mapping.modules]
    dialect = mapping.upstream.dialect
    doc["entities"] = {name: _entity(e, dialect) for name, e in mapping.entities.items()}
    if mapping.operations:
        doc["operations"] = [_operation(op) for op in mapping.operations]
    serve = _serve(mapping.serve)
    if serve:
        doc["serve"] = serve
    if mapping.unmapped:
        doc["unmapped"] = [
            {"path": u.path, **({"method": u.method} if u.method else {}), "reason": u.reason}
            for u in mapping.unmapped
        ]
    if mapping.probe is not None:
        doc["probe"] = _probe(mapping.probe)
    return doc


def dump_yaml(mapping: MappingModel | Doc, header: list[str] | None = None) -> str:
    """The mapping (or its dumped document) as YAML text, `header` as leading comments."""
    doc = mapping if isinstance(mapping, dict) else dump(mapping)
    return yaml_text(doc, header)
