"""An OpenAPI 3.0/3.1 document (or a Swagger 2 one, rewritten) read into routes.

A `SpecRoute` is one method on one path with what the prober needs from it:
typed parameters, the request body's fields, and what kind of answer it gives.
`_collections` groups routes into entities; the rest become operation candidates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._auth import SecurityScheme, prefix_from
from .._draft import Claim, Param
from .._text import plain
from ._bodies import body_encoding, declares_no_field, form_schema
from ._schema import Resolver, SchemaProblem, claim_of, object_properties
from ._specload import SpecDoc
from ._swagger2 import to_openapi3

METHODS = ("get", "post", "put", "patch", "delete")
# An absolute URL whose path reads as written: an ASCII host that is no IP address, and
# no user, escape, query or fragment. Any other URL is left to httpx's parser.
_PLAIN_URL = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?![0-9.]*(?::|/|$))[A-Za-z0-9.-]+(?::[0-9]*)?"
    r"(/[A-Za-z0-9_~!$&'()*+,;=:@/.-]*)?"
)
_SUCCESS = ("200", "201", "202", "203", "204", "2XX", "2xx", "default")


@dataclass(frozen=True, slots=True)
class Body:
    """What an operation takes or answers: ``json`` (with a schema), or another kind."""

    kind: str  # json | form | multipart | binary | html | text | none
    schema: Any = None


@dataclass(frozen=True, slots=True)
class SpecRoute:
    method: str
    path: str
    tag: str | None
    summary: str | None
    operation_id: str | None
    params: tuple[Param, ...]
    request: Body
    response: Body
    security: tuple[str, ...] | None
    # The spec's own word on destructiveness (``x-a2app-destructive``), if it says.
    destructive: bool | None = None
    # A success answer declares a ``Location`` header (where a created record is read).
    location: bool = False


@dataclass(frozen=True, slots=True)
class SpecRoutes:
    source: str
    location: str
    title: str | None
    version: str | None
    routes: tuple[SpecRoute, ...]
    resolver: Resolver
    schemes: Mapping[str, SecurityScheme]
    security: tuple[str, ...]
    tags: Mapping[str, str | None] = field(default_factory=dict)
    # How the upstream takes write bodies: ``form`` when its writes take url-encoded
    # forms and none takes JSON (see `_bodies.body_encoding`).
    body_encoding: str = "json"


def _server_path(doc: Mapping[str, Any]) -> str:
    """The path part of the first server, read only (servers are never contacted)."""
    servers = doc.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return ""
    url = str(servers[0].get("url", ""))
    path = url_path(url) if "://" in url else url.split("?", 1)[0]
    return "" if path is None or "{" in path else path.rstrip("/")


def url_path(url: str) -> str | None:
    """The path of an absolute URL as httpx reads it, None when httpx refuses the URL.

    A plain URL is read here: a spec file alone is probed without loading the HTTP stack.
    """
    plain_url = _PLAIN_URL.fullmatch(url)
    if plain_url is not None:
        path = plain_url.group(1) or "/"
        # httpx resolves dot segments; such a path is left to it
        if not any(part in (".", "..") for part in path.split("/")):
            return path
    import httpx

    try:
        return httpx.URL(url).path
    except httpx.InvalidURL:
        return None


def _body(content: Any) -> Body:
    if not isinstance(content, Mapping) or not content:
        return Body("none")
    kinds = [str(media).lower() for media in content]
    for media, kind in zip(content, kinds, strict=True):
        if "json" in kind:
            entry = content[media] if isinstance(content[media], Mapping) else {}
            return Body("json", entry.get("schema"))
    form_kind, form = form_schema(content)
    if form_kind is not None:
        return Body(form_kind, form)
    if any("html" in k for k in kinds):
        return Body("html")
    if any(k.startswith("text/") for k in kinds):
        return Body("text")
    return Body("binary")


def _response(op: Mapping[str, Any], resolver: Resolver) -> Body:
    responses = op.get("responses")
    if not isinstance(responses, Mapping):
        return Body("none")
    for code in _SUCCESS:
        answer = responses.get(code)
        if answer is None:
            continue
        try:
            answer, _ = resolver.deref(answer, ())
        except SchemaProblem:
            return Body("none")
        return _body(answer.get("content"))
    return Body("none")


def _locates(op: Mapping[str, Any], resolver: Resolver) -> bool:
    """Whether a success answer declares a ``Location`` header."""
    responses = op.get("responses")
    if not isinstance(responses, Mapping):
        return False
    for code in _SUCCESS:
        try:
            answer, _ = resolver.deref(responses.get(code), ())
        except SchemaProblem:
            continue
        headers = answer.get("headers") if isinstance(answer, Mapping) else None
        if isinstance(headers, Mapping) and any(str(h).lower() == "location" for h in headers):
            return True
    return False


def _request(op: Mapping[str, Any], resolver: Resolver) -> Body:
    try:
        body, _ = resolver.deref(op.get("requestBody"), ())
    except SchemaProblem:
        return Body("none")
    found = _body(body.get("content"))
    if found.kind in ("form", "multipart") and declares_no_field(found.schema, resolver):
        return Body("none")  # an empty form carries nothing
    return found


def _params(
    shared: list[Any], op: Mapping[str, Any], resolver: Resolver, source: str
) -> list[Param]:
    found: dict[tuple[str, str], Param] = {}
    for raw in [*shared, *(op.get("parameters") or [])]:
        try:
            param, _ = resolver.deref(raw, ())
        except SchemaProblem:
            continue
        name, where = param.get("name"), param.get("in")
        if not isinstance(name, str) or where not in ("path", "query", "header", "cookie"):
            continue
        # The parameter's own description stands in for its schema's.
        told = str(param["description"]) if param.get("description") else None
        try:
            claim = claim_of(param.get("schema", {}), resolver, source, description=told)
        except SchemaProblem as problem:
            claim = Claim(source, type="json", detail=problem.detail, description=told)
        found[(name, where)] = Param(name, where, claim, bool(param.get("required")))
    return list(found.values())


def _scheme(key: str, raw: Any) -> SecurityScheme | None:
    if not isinstance(raw, Mapping):
        return None
    return SecurityScheme(
        key=key,
        kind=str(raw.get("type", "")),
        where=raw.get("in"),
        param=raw.get("name"),
        scheme=str(raw.get("scheme", "")).lower() or None,
        prefix=prefix_from(raw.get("description")),
    )


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _security(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(key for req in value if isinstance(req, Mapping) for key in req)


def read_routes(spec: SpecDoc, base_path: str = "") -> SpecRoutes:
    """Every route of the spec, with paths written relative to the upstream base."""
    doc = to_openapi3(spec.doc) if spec.source == "swagger" else spec.doc
    resolver = Resolver(doc)
    prefix = _server_path(doc)
    base = base_path.rstrip("/")
    routes: list[SpecRoute] = []
    for raw_path, item in (doc.get("paths") or {}).items():
        if not isinstance(item, Mapping) or not isinstance(raw_path, str):
            continue
        path = prefix + raw_path
        if base and path.startswith(base + "/"):
            path = path[len(base) :]
        shared = list(item.get("parameters") or [])
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping):
                continue
            tags = op.get("tags")
            routes.append(
                SpecRoute(
                    method=method.upper(),
                    path=path,
                    tag=str(tags[0]) if isinstance(tags, list) and tags else None,
                    summary=plain(op.get("summary")) or plain(op.get("description")),
                    operation_id=op.get("operationId"),
                    params=tuple(_params(shared, op, resolver, spec.source)),
                    request=_request(op, resolver),
                    response=_response(op, resolver),
                    security=_security(op.get("security")),
                    destructive=_flag(op.get("x-a2app-destructive")),
                    location=_locates(op, resolver),
                )
            )
    components = doc.get("components") if isinstance(doc.get("components"), Mapping) else {}
    raw_schemes = (components or {}).get("securitySchemes") or {}
    schemes = {k: s for k, v in raw_schemes.items() if (s := _scheme(k, v)) is not None}
    info = doc.get("info") if isinstance(doc.get("info"), Mapping) else {}
    tags = {
        str(t["name"]): (str(t["description"]) if t.get("description") else None)
        for t in doc.get("tags") or []
        if isinstance(t, Mapping) and "name" in t
    }
    return SpecRoutes(
        source=spec.source,
        location=spec.location,
        title=(info or {}).get("title"),
        version=str((info or {}).get("version")) if (info or {}).get("version") else None,
        routes=tuple(routes),
        resolver=resolver,
        schemes=schemes,
        security=_security(doc.get("security")) or (),
        tags=tags,
        body_encoding=body_encoding(r.request.kind for r in routes),
    )


def body_fields(
    schema: Any, resolver: Resolver, source: str
) -> tuple[dict[str, Claim | SchemaProblem], list[str]]:
    """An object schema's properties as claims (or the problem of each), and its required."""
    props, required, seen = object_properties(schema, resolver)
    out: dict[str, Claim | SchemaProblem] = {}
    for name, node in props.items():
        try:
            out[str(name)] = claim_of(node, resolver, source, seen)
        except SchemaProblem as problem:
            out[str(name)] = problem
    return out, required
