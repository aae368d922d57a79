"""Validated mapping document -> frozen typed objects."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from ._frozen import freeze
from ._interpolate import MissingVariable, resolve
from ._model import (
    DAY_KEY_FORMAT,
    READ_ONLY,
    App,
    Auth,
    AuthType,
    CrudExecutor,
    Entity,
    Evidence,
    Feed,
    Field,
    FieldType,
    FilterParam,
    Hook,
    JobExecutor,
    ListSpec,
    Module,
    Operation,
    Pagination,
    ProbeRecord,
    RateLimits,
    Request,
    ResponseProjection,
    Schedule,
    Serve,
    SortSpec,
    Trigger,
    Unmapped,
    Upstream,
    WriteSpec,
    frozen_map,
    served_values,
)
from ._model import Mapping as MappingModel
from ._predicate import compile_predicate

Resolver = Callable[[str], str]


def dotted(path: str | None) -> tuple[str, ...]:
    return tuple(part for part in (path or "").split(".") if part)


def _evidence(items: list[Any] | None) -> tuple[Evidence, ...]:
    out = []
    for item in items or []:
        if isinstance(item, str):
            out.append(Evidence(item))
        else:
            out.append(Evidence(item["source"], item.get("detail")))
    return tuple(out)


def _field(name: str, spec: dict[str, Any]) -> Field:
    ftype, values, candidates = served_values(
        spec["type"], tuple(spec.get("values", ())), closed=spec.get("valuesClosed", True)
    )
    return Field(
        name=name,
        type=FieldType(ftype),
        source=dotted(spec.get("source", name)),
        required=spec.get("required", False),
        read_only=spec.get(READ_ONLY, False),
        server_sets=tuple(spec.get("serverSets", ())),
        write_only=spec.get("writeOnly", False),
        create_only=spec.get("createOnly", False),
        update_only=spec.get("updateOnly", False),
        nullable=spec.get("nullable"),
        max=spec.get("max"),
        values=values,
        values_closed=spec.get("valuesClosed", True),
        candidates=candidates,
        entity=spec.get("entity"),
        day_key=spec.get("format") == DAY_KEY_FORMAT,
        normalize=tuple(spec.get("normalize", ())),
        decimals=spec.get("decimals"),
        on_delete=spec.get("onDelete", "restrict"),
        upstream_on_delete=spec.get("upstreamOnDelete"),
        upstream_checks_ref=spec.get("upstreamChecksRef"),
        description=spec.get("description"),
        evidence=_evidence(spec.get("evidence")),
        confidence=spec.get("confidence"),
        note=spec.get("note"),
        codec=spec.get("codec"),
        write_source=dotted(spec["writeSource"]) if "writeSource" in spec else None,
    )


def _filter_param(spec: Any) -> FilterParam:
    if isinstance(spec, str):
        return FilterParam(spec)
    return FilterParam(spec["param"], spec.get("proven", False), _evidence(spec.get("evidence")))


def _entity(name: str, spec: dict[str, Any]) -> Entity:
    fields = {fname: _field(fname, fspec) for fname, fspec in spec["fields"].items()}
    ident = spec.get("id", {})
    path = spec["path"]
    detail = spec.get("detailPath") or (
        path.rstrip("/") + "/{id}" + ("/" if path.endswith("/") else "")
    )
    sort = spec.get("sort")
    write = spec.get("write", {})
    update = write.get("update", "PATCH")
    return Entity(
        name=name,
        module=spec["module"],
        path=path,
        detail_path=detail,
        id_source=dotted(ident.get("source", "id")),
        id_type=ident.get("type", "string"),
        id_client=ident.get("client", False),
        fields=frozen_map(fields),
        label=spec.get("label", default_label(fields)),
        summary=spec.get("summary"),
        auth=spec.get("auth", False),
        write_allow=tuple(spec.get("writeAllow", ())),
        filters=frozen_map(
            {
                f: frozen_map({op: _filter_param(p) for op, p in ops.items()})
                for f, ops in spec.get("filter", {}).items()
            }
        ),
        sort=None
        if sort is None
        else SortSpec(
            param=sort["param"],
            fields=tuple(sort["fields"]),
            desc=sort.get("desc", "-"),
            separator=sort.get("separator", ","),
            proven=sort.get("proven", False),
        ),
        write=WriteSpec(
            create=write.get("create", True),
            update=None if update is False else update,
            delete=write.get("delete", True),
            wrap=write.get("wrap"),
            answer=dotted(write["answer"]) if "answer" in write else None,
            find_by=write.get("findBy"),
        ),
        evidence=_evidence(spec.get("evidence")),
        confidence=spec.get("confidence"),
        listing=compile_listing(spec.get("list")),
    )


def default_label(fields: Mapping[str, Field]) -> str | None:
    """Protocol §6.3: title, name or label; else the first required writable string."""
    for candidate in ("title", "name", "label"):
        if candidate in fields:
            return candidate
    for f in fields.values():
        if f.type == "string" and f.required and not f.read_only:
            return f.name
    return None


def _request(spec: dict[str, Any] | None) -> Request | None:
    if spec is None:
        return None
    return Request(method=spec["method"], path=spec["path"], send=spec.get("send", "body"))


def _operation(spec: dict[str, Any]) -> Operation:
    crud = spec.get("crud")
    job = spec.get("job")
    response = spec.get("response")
    return Operation(
        name=spec["name"],
        module=spec["module"],
        destructive=spec["destructive"],
        params=frozen_map({p: _field(p, ps) for p, ps in spec["params"].items()}),
        description=spec.get("description"),
        entity=spec.get("entity"),
        read_only=spec.get(READ_ONLY, False),
        idempotent=spec.get("idempotent", False),
        applies_when=None if "appliesWhen" not in spec else compile_predicate(spec["appliesWhen"]),
        request=_request(spec.get("request")),
        crud=None
        if crud is None
        else CrudExecutor(
            action=crud["action"],
            entity=crud["entity"],
            target=crud.get("target"),
            set=freeze(crud.get("set", {})),
            filter=crud.get("filter"),
        ),
        job=None
        if job is None
        else JobExecutor(
            request=cast(Request, _request(job["request"])),
            timeout_seconds=job.get("timeoutSeconds"),
        ),
        response=None
        if response is None
        else ResponseProjection(
            pick=dotted(response.get("pick")), fields=tuple(response.get("fields", ()))
        ),
        schedule=_schedule(spec.get("schedule")),
        evidence=_evidence(spec.get("evidence")),
        confidence=spec.get("confidence"),
    )


def _schedule(spec: dict[str, Any] | None) -> Schedule | None:
    if spec is None:
        return None
    return Schedule(
        when=spec["when"],
        on_missed=spec.get("onMissed", "skip"),
        approved_by=spec.get("approvedBy"),
    )


def compile_auth(spec: Mapping[str, Any] | None, res: Resolver) -> Auth:
    kind = AuthType(spec["type"] if spec is not None else "none")
    if spec is None or kind == AuthType.NONE:
        return Auth(type=AuthType.NONE)
    if kind in (AuthType.HEADER, AuthType.QUERY):
        return Auth(type=kind, name=spec["name"], value=res(spec["value"]))
    if kind == AuthType.BEARER:
        return Auth(type=kind, name="Authorization", value="Bearer " + res(spec["token"]))
    return Auth(type=kind, username=res(spec["username"]), password=res(spec["password"]))


def compile_pagination(pag: Mapping[str, Any]) -> Pagination:
    return Pagination(
        style=pag["style"],
        page=pag.get("page"),
        size=pag.get("size"),
        offset=pag.get("offset"),
        cursor=pag.get("cursor"),
        items=dotted(pag.get("items")),
        total=dotted(pag["total"]) if "total" in pag else None,
        total_header=pag.get("totalHeader"),
        next=dotted(pag["next"]) if "next" in pag else None,
        max_size=pag.get("maxSize"),
        first_page=pag.get("firstPage", 1),
        next_from=dotted(pag["nextFrom"]) if "nextFrom" in pag else None,
        more=dotted(pag["more"]) if "more" in pag else None,
        next_header=pag.get("nextHeader"),
        unit=pag.get("unit"),
        unit_header=pag.get("unitHeader"),
    )


def compile_listing(spec: Mapping[str, Any] | None) -> ListSpec | None:
    """An entity's ``list:``: how it is listed when not by GET on its path."""
    if spec is None:
        return None
    pagination = spec.get("pagination")
    return ListSpec(
        method=spec.get("method", "GET"),
        path=spec.get("path"),
        pagination=None if pagination is None else compile_pagination(pagination),
        evidence=_evidence(spec.get("evidence")),
    )


def _upstream(spec: dict[str, Any], res: Resolver) -> Upstream:
    envelope = spec.get("envelope", {})
    return Upstream(
        base_url=res(spec["baseUrl"]).rstrip("/"),
        auth=compile_auth(spec.get("auth"), res),
        headers=frozen_map({k: res(v) for k, v in spec.get("headers", {}).items()}),
        pagination=compile_pagination(spec.get("pagination", {"style": "none"})),
        errors=spec.get("errors", "plain"),
        dialect=spec.get("dialect", "none"),
        timeout_seconds=float(spec.get("timeoutSeconds", 10.0)),
        item_envelope=dotted(envelope.get("item")),
        write_envelope=envelope.get("write"),
        body_encoding=spec.get("bodyEncoding", "json"),
        not_found_status=int(spec.get("notFoundStatus", 404)),
    )


def _serve(spec: dict[str, Any] | None, res: Resolver) -> Serve:
    spec = spec or {}
    limits = spec.get("rateLimits", {})
    return Serve(
        auth_mode=spec.get("authMode", "none"),
        allowed_origins=tuple(spec.get("allowedOrigins", ())),
        allowed_hosts=tuple(h.lower() for h in spec.get("allowedHosts", ())),
        credential_hint=spec.get("credentialHint"),
        approvals=spec.get("approvals", "host"),
        conventions=frozen_map(spec.get("conventions", {})),
        rate_limits=RateLimits(data=limits.get("data", 1200), ops=limits.get("ops", 300)),
        scan_limit=spec.get("scanLimit", 10_000),
        triggers=tuple(_trigger(t) for t in spec.get("triggers", ())),
        feed=_feed(spec.get("feed")),
        hooks=frozen_map({name: _hook(h, res) for name, h in spec.get("hooks", {}).items()}),
        time_zone=spec.get("timeZone", "UTC"),
    )


def _feed(spec: dict[str, Any] | None) -> Feed | None:
    if spec is None:
        return None
    return Feed(
        entities=tuple(spec["entities"]),
        interval=int(spec.get("interval", 60)),
        budget=int(spec.get("budget", 60)),
    )


def _trigger(spec: dict[str, Any]) -> Trigger:
    return Trigger(
        type=spec["type"],
        entity=spec["entity"],
        filter=spec["filter"],
        capability=spec.get("capability"),
        payload=tuple(spec.get("payload", ())),
        dedup_key=tuple(spec.get("dedupKey", ())),
    )


def _hook(spec: dict[str, Any], res: Resolver) -> Hook:
    payload = spec.get("payload", "body")
    return Hook(
        scheme=spec["scheme"],
        secret=res(spec["secret"]),
        event=spec["event"],
        payload=() if payload == "body" else tuple(payload),
        capability=spec.get("capability"),
        tolerance=spec.get("tolerance", 300),
        header=spec.get("header"),
        encoding=spec.get("encoding", "hex"),
        prefix=spec.get("prefix", ""),
    )


def _probe(spec: dict[str, Any] | None) -> ProbeRecord | None:
    if spec is None:
        return None
    sources, notes = spec.get("sources"), spec.get("notes")
    return ProbeRecord(
        tool=spec.get("tool"),
        sources=None if sources is None else tuple(sources),
        notes=None if notes is None else tuple(notes),
    )


def compile_document(
    doc: dict[str, Any],
    *,
    content_hash: str,
    env: Mapping[str, str] | None,
    source_path: str | None = None,
) -> MappingModel:
    """Build the typed mapping; with `env=None` templates are kept as written."""

    missing: list[str] = []

    def res(template: str) -> str:
        if env is None:
            return template
        try:
            return resolve(template, env)
        except MissingVariable as exc:
            missing.extend(n for n in exc.names if n not in missing)
            return ""

    compiled = MappingModel(
        format=doc["format"],
        app=App(
            id=doc["app"]["id"], name=doc["app"].get("name"), version=doc["app"].get("version")
        ),
        upstream=_upstream(doc["upstream"], res),
        modules=tuple(Module(m["name"], m.get("summary")) for m in doc["modules"]),
        entities=frozen_map({n: _entity(n, s) for n, s in doc["entities"].items()}),
        operations=tuple(_operation(o) for o in doc.get("operations", [])),
        serve=_serve(doc.get("serve"), res),
        unmapped=tuple(
            Unmapped(u["path"], u["reason"], u.get("method")) for u in doc.get("unmapped", [])
        ),
        content_hash=content_hash,
        source_path=source_path,
        probe=_probe(doc.get("probe")),
    )
    if missing:
        raise MissingVariable(missing)
    return compiled
