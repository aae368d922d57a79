"""Find and read the API's own description: OpenAPI 3.0/3.1 or Swagger 2.

A spec is given (a file, or a URL that is fetched once, without credentials
unless it lies under the upstream), or found where the root answer says it is
(`_speclinks`: ``Link`` headers, links in a JSON or HTML root), else at the usual
well-known paths under the upstream's base path. Only URLs under the base are
fetched; its ``servers:`` entries are never contacted.

A spec found, not given, must describe the API where it was found: its first GET
route without a path parameter is read once, and a 404 there (a spec of an API
mounted elsewhere, as FastAPI apps mounted under ``/api`` publish one at the root
without their ``servers:``) sends discovery on to the next candidate, noted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from .._errors import UnreachableError, UsageError

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

WELL_KNOWN = (
    "/openapi.json",
    "/api/schema/",
    "/swagger.json",
    "/api/openapi.json",
    "/v3/api-docs",
    "/openapi.yaml",
    "/api/swagger.json",
    "/swagger/v1/swagger.json",
    "/api-docs",
    "/api/docs/openapi.json",
)
SPEC_ACCEPT = (
    "application/vnd.oai.openapi+json, application/json;q=0.9, "
    "application/vnd.oai.openapi;q=0.8, application/yaml;q=0.8, */*;q=0.1"
)


_BOOL = "tag:yaml.org,2002:bool"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _SpecLoader(yaml.SafeLoader):
    """YAML 1.1 would turn ``yes`` into True and ``2024-01-01`` into a date; specs mean text."""


_SpecLoader.yaml_implicit_resolvers = {
    key: kept
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    if (kept := [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _TIMESTAMP)])
}
_SpecLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


@dataclass(frozen=True, slots=True)
class SpecDoc:
    doc: dict[str, Any]
    location: str
    source: str  # openapi | swagger
    # The path under the upstream it was found at (listed as unmapped), if any.
    upstream_path: str | None = None
    # Why it was read there when the API pointed at it (``Link rel="service-desc" on /``).
    found: str | None = None


def parse_spec(text: str) -> dict[str, Any] | None:
    """The document if the text is an OpenAPI 3 or Swagger 2 spec, else None."""
    try:
        doc = json.loads(text)
    except ValueError:
        try:
            doc = yaml.load(text, Loader=_SpecLoader)
        except yaml.YAMLError:
            return None
    if not isinstance(doc, dict) or not isinstance(doc.get("paths"), dict):
        return None
    version = str(doc.get("openapi") or doc.get("swagger") or "")
    return doc if version.startswith(("3.", "2.")) else None


def _kind(doc: dict[str, Any]) -> str:
    return "swagger" if str(doc.get("swagger", "")).startswith("2.") else "openapi"


def load_given(source: str, client: ProbeClient | None) -> SpecDoc:
    """The spec named by ``--openapi``: a file, or a URL fetched once with GET."""
    if source.startswith(("http://", "https://")):
        return _fetch_named(source, client)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--openapi {source}: cannot read: {exc.__class__.__name__}") from None
    doc = parse_spec(text)
    if doc is None:
        raise UsageError(f"--openapi {source}: not an OpenAPI 3 or Swagger 2 document")
    return SpecDoc(doc, path.name, _kind(doc))


def _fetch_named(url: str, client: ProbeClient | None) -> SpecDoc:
    import httpx  # loaded to fetch a spec named by URL; a spec file never needs it

    from ..live import ProbeClient

    target = httpx.URL(url)
    if client is not None and client.base.contains(target):
        answer = client.get(target, accept=SPEC_ACCEPT)
        where: str | None = client.relative(target)
    else:
        # Somewhere else: no credentials travel there, and only that one URL is read.
        origin = str(target.copy_with(path="/", query=None, fragment=None))
        own = ProbeClient(origin, {})
        try:
            answer = own.get(target, accept=SPEC_ACCEPT)
        finally:
            own.close()
        where = None
    if answer.failure is not None:
        raise UnreachableError(f"--openapi {url}: no answer ({answer.failure})")
    doc = parse_spec(answer.text or "") if answer.ok else None
    if doc is None:
        raise UsageError(
            f"--openapi {url}: HTTP {answer.status}, not an OpenAPI 3 or Swagger 2 document"
        )
    return SpecDoc(doc, url if where is None else where, _kind(doc), where)


# Links a root answer names, at most this many read.
MAX_LINKED = 8


def _linked(client: ProbeClient, first: Exchange, notes: list[str]) -> SpecDoc | None:
    from ._speclinks import spec_links  # a live root's links; a spec file needs none

    for link in spec_links(first)[:MAX_LINKED]:
        url = client.resolve(link.href, first.url)
        if url is None:
            notes.append(f"spec: {link.why} names {link.href}, outside the upstream: not read "
                         "(give it with --openapi)")  # fmt: skip
            continue
        answer = client.get(url, accept=SPEC_ACCEPT)
        doc = parse_spec(answer.text) if answer.ok and answer.text is not None else None
        path = client.relative(url)
        if doc is not None:
            return SpecDoc(doc, path, _kind(doc), path, link.why)
        notes.append(f"spec: {link.why} names {path}: not an OpenAPI 3 or Swagger 2 document")
    return None


def _first_plain_get(doc: dict[str, Any], base_path: str) -> str | None:
    """The spec's first GET route with no path parameter, relative to the base."""
    import httpx  # found, not given: a live probe, which has it loaded

    if _kind(doc) == "swagger":
        prefix = str(doc.get("basePath") or "")
    else:
        servers = doc.get("servers")
        first = servers[0] if isinstance(servers, list) and servers else None
        url = str(first.get("url", "")) if isinstance(first, dict) else ""
        prefix = httpx.URL(url).path if "://" in url else url.split("?", 1)[0]
    if "{" in prefix:
        return None
    prefix, base = prefix.rstrip("/"), base_path.rstrip("/")
    for raw, item in doc["paths"].items():
        if isinstance(raw, str) and "{" not in raw and isinstance(item, dict) and "get" in item:
            path = prefix + raw
            return path[len(base) :] if base and path.startswith(base + "/") else path
    return None


def _not_here(client: ProbeClient, doc: dict[str, Any], where: str) -> str | None:
    """Why the spec found at `where` does not describe this API, or None."""
    route = _first_plain_get(doc, client.base.url.path)
    if route is None or route == where:
        return None
    answer = client.get(route)
    if answer.status != 404:
        return None
    return f"spec: {where}: its GET {route} answered 404 here: not this API's description"


def _confirmed(client: ProbeClient, found: SpecDoc | None, notes: list[str]) -> SpecDoc | None:
    if found is None:
        return None
    refuted = _not_here(client, found.doc, found.upstream_path or found.location)
    if refuted is None:
        return found
    notes.append(refuted)
    return None


def discover(
    client: ProbeClient, first: Exchange | None = None, notes: list[str] | None = None
) -> SpecDoc | None:
    """The spec the root answer (`first`) points at, else the first well-known path
    under the base that serves one and whose routes answer here; what was tried and
    refused goes to `notes`."""
    said: list[str] = notes if notes is not None else []
    if first is not None:
        found = _confirmed(client, _linked(client, first, said), said)
        if found is not None:
            return found
    for path in WELL_KNOWN:
        answer = client.get(path, accept=SPEC_ACCEPT)
        if not answer.ok or answer.text is None:
            continue
        doc = parse_spec(answer.text)
        why = "a well-known path; nothing linked one"
        spec = _confirmed(client, SpecDoc(doc, path, _kind(doc), path, why), said) if doc else None
        if spec is not None:
            return spec
    return _from_docs_pages(client, said)


# Where API docs pages usually are (Swagger UI, ReDoc), read when no spec was found
# elsewhere: the page names its spec's URL (FastAPI's `url: '/openapi.json'`).
DOCS_PAGES = ("/docs", "/api/docs", "/redoc", "/api/redoc", "/swagger-ui/", "/swagger-ui.html")
_DOCS_URL = re.compile(r"""(?:\burl\s*:\s*|spec-url\s*=\s*)["']([^"'\s]+)["']""")


def _from_docs_pages(client: ProbeClient, notes: list[str]) -> SpecDoc | None:
    for page in DOCS_PAGES:
        answer = client.get(page, accept="text/html")
        if not answer.ok or not answer.text or answer.url is None:
            continue
        for href in _DOCS_URL.findall(answer.text)[:MAX_LINKED]:
            url = client.resolve(href, answer.url)
            if url is None:
                notes.append(f"spec: the docs page {page} names {href}, outside the upstream: "
                             "not read (give it with --openapi)")  # fmt: skip
                continue
            got = client.get(url, accept=SPEC_ACCEPT)
            doc = parse_spec(got.text) if got.ok and got.text is not None else None
            path = client.relative(url)
            why = f"named by the docs page {page}"
            spec = (
                _confirmed(client, SpecDoc(doc, path, _kind(doc), path, why), notes)
                if doc
                else None
            )
            if spec is not None:
                return spec
    return None
