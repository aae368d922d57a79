"""The probe, start to end: sources read, evidence merged, one draft out.

spec (given, linked, well-known) ─┐
  its templated collections ──────┤ (instances walked from their parent listings)
API roots and links ──────────────┼─> collections ─> live samples, OPTIONS, detail reads
HTML pages' JSON renderings ──────┤      │             ├─ pagination (+ a size probe)
                                  │      │             ├─ refs (one lookup GET each)
                                  │      │             └─ sort fields (up/down probes)
                                  │      └─ every read refused: stop, name the --header
spec routes not CRUD ─────────────┴─> operations
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._auth import HeaderArg, parse_headers
from ._draft import SPEC_SOURCES, Draft, EntityDraft, OperationDraft, UpstreamDraft
from ._errors import Finding, NothingMappable, UsageError
from ._naming import app_id, env_prefix, identifier, words
from .decide import (
    Live,
    Paging,
    Source,
    all_refused,
    build,
    by_name_and_format,
    by_name_only,
    credentials,
    decide,
    dialects,
    expand,
    filter_candidates,
    fit_pages,
    metadata,
    not_found_status,
    pocketbase,
    probe_sort,
    propose,
    ref_inputs,
    refine,
    refusal,
    refuse_unwalkable,
    settle,
    sort_param,
    sources_of,
    spec_paging,
    template,
    unclaimed,
    unserved,
    with_size_cap,
)
from .sources import (
    Pages,
    Roots,
    SpecDoc,
    SpecRoutes,
    discover,
    find_roots,
    group_all,
    load_given,
    read_pages,
    read_routes,
)

if TYPE_CHECKING:
    import httpx

    from .live import Exchange, ProbeClient

Progress = Callable[[str], None]
_APP_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass(frozen=True, slots=True)
class ProbeOptions:
    url: str | None = None
    openapi: str | None = None
    headers: tuple[str, ...] = ()
    app_id: str | None = None
    collections: tuple[str, ...] = ()
    timeout: float = 10.0


@dataclass(slots=True)
class ProbeRun:
    draft: Draft
    requests: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _quiet(_: str) -> None:
    return None


def _app_id(options: ProbeOptions, routes: SpecRoutes | None) -> str:
    if options.app_id is not None:
        return options.app_id
    if routes is not None and routes.title:
        return app_id(routes.title)
    host = _host(options.url) if options.url else ""
    labels = [w for w in words(host) if w not in ("www", "api", "localhost") and not w.isdigit()]
    return app_id(labels[0]) if labels else "app"


def _host(url: str) -> str:
    import httpx  # only with an upstream URL, whose probe has it loaded

    return httpx.URL(url).host


def _refs(sources: dict[str, Source], live: Live | None) -> None:
    ids = {
        name: frozenset(str(v) for v in src.values(src.id_source() or "id") if v is not None)
        for name, src in sources.items()
    }
    details = {name: template(src) for name, src in sources.items()}
    formats = {name: _id_format(src) for name, src in sources.items()}
    for src in sources.values():
        for wire, (values, declared, explicit) in ref_inputs(src).items():
            name = identifier(wire.split(".")[-3] if wire.endswith(".data.id") else wire)
            if live is None or not src.records:
                decision = by_name_only(name, declared.wire if declared else None, sources)
            else:
                decision = decide(name, values, ids, live.lookup, explicit=explicit,
                                  detail_paths=details)  # fmt: skip
            if (decision is None or decision.type is None) and all(v is None for v in values):
                # Nothing stored to look up: the spec's id format may still tell.
                decision = by_name_and_format(name, declared, formats, src.spec_source) or decision
            if decision is not None:
                src.refs[wire] = decision


def _id_format(src: Source) -> str | None:
    """The spec's format of a collection's ids (``uuid``), if it says one."""
    ident = src.id_source()
    claim = src.spec.fields.get(ident) if src.spec is not None and ident else None
    return claim.format if claim is not None else None


def _entities(sources: dict[str, Source]) -> tuple[dict[str, EntityDraft], list[Finding]]:
    entities: dict[str, EntityDraft] = {}
    findings: list[Finding] = []
    for src in sources.values():
        if src.obs is not None and src.obs.finding is not None:
            findings.append(src.obs.finding)
            if src.spec is None or src.obs.finding.code == "not-found":
                # Nothing else describes it, or the live upstream has no such listing
                # whatever its spec says: it stays under `unmapped` with the 404.
                continue
        entity, problems = build(src)
        findings.extend(problems)
        if entity is not None:
            entities[entity.name] = entity
    for entity in entities.values():
        for f in entity.fields.values():
            if f.entity is not None and f.entity not in entities:
                f.notes.append(f"refers to {f.entity}, which could not be mapped")
                f.type = "json" if f.type == "list<ref>" else "string"
                f.entity, f.confidence = None, "low"
    return entities, findings


def _paging(sources: dict[str, Source], live: Live | None) -> Paging | None:
    params = {n: [p.name for p in s.spec.query] if s.spec else [] for n, s in sources.items()}
    found = live.paging(params) if live else None
    # A POST listing's paging is its own (`list.pagination`), not the upstream's.
    spec = next((s.spec for s in sources.values() if s.spec and not s.spec.list_path), None)
    if found is None and spec is not None:
        found = spec_paging(spec.items_key, spec.list_keys, params[spec.name],
                            sources[spec.name].id_source())  # fmt: skip
    if found is not None and spec is not None and sources[spec.name].spec_source in SPEC_SOURCES:
        found.pagination = with_size_cap(found.pagination, spec.query, found.notes)
    return found


def _filters_and_sorts(sources: dict[str, Source], entities: dict[str, EntityDraft],
                       live: Live | None, drf: bool, dialect: str, size: str | None,
                       notes: list[str]) -> None:  # fmt: skip
    for name, entity in entities.items():
        src = sources[name]
        if src.spec is not None:
            entity.filters = filter_candidates(src.spec.query, entity.fields, entity.id_source,
                                               dialect)  # fmt: skip
        param = sort_param(src.spec.query) if src.spec else ("ordering" if drf else None)
        if param is None:
            continue
        if live is None:
            notes.append(f"entities.{name}.sort: {param} offered; fields need a live probe")
            continue
        extra = {size: "1"} if size else {}
        fetch = live.fetch(src.path, extra)
        entity.sort, found = probe_sort(param, entity.fields, src.records, entity.id_source, fetch)
        notes.extend(f"entities.{name}.{n}" for n in found)


def _collection_paths(options: ProbeOptions) -> list[str]:
    paths = []
    for path in options.collections:
        if not path.startswith("/") or "://" in path or "{" in path:
            raise UsageError(f"--collection {path!r}: a path under the base URL, like /cards")
        paths.append(path)
    if paths and not options.url:
        raise UsageError("--collection needs the upstream URL to sample it")
    return paths


def _load_spec(
    options: ProbeOptions, client: ProbeClient | None, first: Exchange | None, notes: list[str]
) -> SpecDoc | None:
    if options.openapi:
        return load_given(options.openapi, client)
    spec = discover(client, first, notes) if client is not None else None
    if spec is not None and spec.found is not None:
        notes.append(f"spec: {spec.location} ({spec.found})")
    return spec


def probe(
    options: ProbeOptions,
    *,
    env: Mapping[str, str] | None = None,
    progress: Progress = _quiet,
    transport: httpx.BaseTransport | None = None,
) -> ProbeRun:
    """Probe one API read-only and return the draft; `ProbeError`s say why not."""
    started = time.perf_counter()
    if not options.url and not options.openapi:
        raise UsageError("give the upstream URL, --openapi FILE_OR_URL, or both")
    if options.app_id is not None and not _APP_ID.match(options.app_id):
        raise UsageError(f"--app-id {options.app_id!r}: lower case letters, digits, _ and -")
    headers = parse_headers(options.headers, os.environ if env is None else env)
    client: ProbeClient | None = None
    if options.url:
        from .live import ProbeClient

        try:
            wire = {h.name: h.wire for h in headers}
            client = ProbeClient(options.url, wire, transport=transport, timeout=options.timeout)
        except ValueError as exc:
            raise UsageError(f"{options.url}: {exc}") from None
    try:
        draft = _probe(options, client, headers, progress)
    finally:
        if client is not None:
            client.close()
    sent = dict(sorted(client.sent.items())) if client else {}
    return ProbeRun(draft, sent, time.perf_counter() - started)


def _probe(
    options: ProbeOptions, client: ProbeClient | None, headers: Sequence[HeaderArg],
    progress: Progress,
) -> Draft:  # fmt: skip
    first = client.reach() if client else None
    spec_notes: list[str] = []
    spec = _load_spec(options, client, first, spec_notes)
    progress(f"spec: {spec.location} ({spec.source})" if spec else "spec: none found")
    routes = read_routes(spec, client.base.url.path if client else "") if spec else None
    colls, nested, rest, findings = group_all(routes) if routes else ([], [], [], [])
    native = pocketbase(client, first if routes is None else None)  # its collection schema
    colls, findings = [*colls, *native.schema.collections], [*findings, *native.schema.findings]
    # Without a spec or a collection schema, the API may describe itself (a metadata API).
    described = metadata(client, routes is None and not native.schema.read)
    colls, findings = [*colls, *described.found.collections], [*findings, *described.found.findings]
    roots = find_roots(client, first) if client else Roots()
    findings.extend(roots.findings)
    # No spec, no API root and not the owner named a collection: an HTML home page
    # may link them.
    pages = Pages()
    named = bool(options.collections)
    if client is not None and first is not None and not (colls or roots.links or named):
        pages = read_pages(client, first)
        findings.extend(pages.findings)
    if client is not None and nested:
        colls, rest, findings = expand(client, colls, nested, rest, findings)
    sources = sources_of(colls, roots, routes, _collection_paths(options), pages.found)
    native.adopt(sources)
    described.adopt(sources)
    progress(f"collections: {', '.join(sources) or 'none'}")
    live = Live(client, sources, progress) if client else None
    if live is not None:
        live.observe()
        public = [p for p in (first.path if first else None, spec and spec.upstream_path) if p]
        if all_refused(live.client, sources, public):
            found = [
                *findings,
                *(s.obs.finding for s in sources.values() if s.obs and s.obs.finding),
            ]
            ident = _app_id(options, routes)
            unmapped = _unmapped(found, spec, roots, pages)
            raise refusal(live.client, routes, headers, ident, unmapped)
    paging = _paging(sources, live)
    pagination = dict(paging.pagination) if paging else {"style": "none"}
    if live is not None:
        live.details(pagination.get("size"))
    _refs(sources, live)
    native.settle(sources, live)
    described.settle(sources, live)
    refused, fit_notes = fit_pages(sources, pagination)
    refused.update(refuse_unwalkable(sources, paging))
    entities, problems = _entities({n: s for n, s in sources.items() if n not in refused})
    findings.extend([*refused.values(), *problems])
    settle(sources, entities)
    ident = _app_id(options, routes)
    upstream, auth_notes, notes = _upstream(
        sources, entities, routes, live, headers, pagination, ident
    )
    page_notes = [f"upstream.pagination: {n}" for n in (paging.notes if paging else [])]
    notes = [*spec_notes, *auth_notes, *page_notes, *fit_notes, *notes]
    _filters_and_sorts(sources, entities, live, upstream.errors == "drf", upstream.dialect,
                       pagination.get("size"), notes)  # fmt: skip
    refine(sources, entities, upstream, live.fetch if live else None, notes)
    native.finish(entities, upstream, notes)
    described.finish(entities, upstream, live.fetch if live else None, notes)
    not_found_status(live, sources, entities, upstream, notes)
    ops: list[OperationDraft] = []
    if routes is not None:
        colls_mapped = [s.spec for s in sources.values() if s.spec and s.name in entities]
        by_entity = {name: e.module for name, e in entities.items()}
        pending = unclaimed(routes, rest, sources, entities)
        ops, op_findings = propose(pending, colls_mapped, by_entity, routes.resolver, "api",
                                   routes.source, routes.body_encoding)  # fmt: skip
        findings.extend([*op_findings, *unserved(sources, entities)])
    unmapped = _unmapped(findings, spec, roots, pages)
    if not entities:
        raise NothingMappable("nothing could be mapped: no collection with typed records", unmapped)
    modules: dict[str, str | None] = {}
    for name, entity in entities.items():
        modules.setdefault(entity.module, sources[name].module_summary)
    for op in ops:
        modules.setdefault(op.module, None)
    return Draft(
        app_id=ident, upstream=upstream, app_name=routes.title if routes else None,
        app_version=routes.version if routes else None, modules=modules, entities=entities,
        operations=ops, unmapped=unmapped, notes=notes,
        sources=[*_sources_used(spec, roots, live, pages), *native.used(), *described.used()],
        # Credentials in the URL itself never reach the file: no default then.
        base_url=str(client.base.url) if client and not client.base.url.userinfo else None,
    )  # fmt: skip


def _upstream(
    sources: dict[str, Source], entities: dict[str, EntityDraft], routes: SpecRoutes | None,
    live: Live | None, headers: Sequence[HeaderArg], pagination: Mapping[str, Any], ident: str,
) -> tuple[UpstreamDraft, list[str], list[str]]:  # fmt: skip
    """Credentials, error and filter dialects, envelopes: the upstream-wide decisions."""
    notes: list[str] = []
    anonymous = None
    if live is not None and headers and entities:
        anonymous = live.anonymous(next(iter(entities.values())).path, notes)
    observations = [s.obs for s in sources.values() if s.obs is not None]
    params = [p.name for s in sources.values() if s.spec for p in s.spec.query]
    errors, dialect, dialect_notes = dialects(observations, params, anonymous, pagination)
    preferred = next((s.spec.security for s in sources.values() if s.spec and s.spec.security),
                     None) or (routes.security if routes else ())  # fmt: skip
    schemes = routes.schemes if routes else {}
    auth, extra, auth_notes = credentials(headers, schemes, preferred, env_prefix(ident))
    envelope = {"item": "data"} if any(o.item_envelope for o in observations) else {}
    upstream = UpstreamDraft(auth, extra, dict(pagination), errors, dialect, envelope)
    if routes is not None and routes.body_encoding != "json":
        upstream.body_encoding = routes.body_encoding
        notes.append(f"upstream.bodyEncoding: {routes.body_encoding}: the spec's writes take "
                     "application/x-www-form-urlencoded bodies, none takes JSON")  # fmt: skip
    return upstream, auth_notes, [*dialect_notes, *notes]


def _unmapped(
    findings: list[Finding], spec: SpecDoc | None, roots: Roots, pages: Pages
) -> list[Finding]:
    if spec is not None and spec.upstream_path is not None:
        detail = f"the API's own {spec.source} document, not data"
        findings.append(Finding(spec.upstream_path, "spec-document", detail, "GET"))
    for root in roots.roots:
        findings.append(Finding(root, "api-root", "an index of the collections, not data", "GET"))
    for page in pages.pages:
        findings.append(Finding(page, "api-root", "an HTML page linking the collections", "GET"))
    return sorted(set(findings), key=lambda f: (f.path, f.method or "", f.code, f.detail))


def _sources_used(spec: SpecDoc | None, roots: Roots, live: Live | None, pages: Pages) -> list[str]:
    used = [f"{spec.source}: {spec.location}"] if spec else []
    used.extend(f"links: {r}" for r in roots.roots)
    used.extend(f"links: {p} (HTML)" for p in pages.pages)
    if live is not None:
        used.extend(live.used())
    return used
