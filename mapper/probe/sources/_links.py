"""API roots and links: collections the upstream names itself.

A DRF ``DefaultRouter`` root answers ``{"cards": "http://host/api/cards/", ...}``;
JSON:API roots carry ``links: {name: href | {href}}``; any root may send
``Link: </api/cards/>; rel="cards"`` headers. Only links under the upstream base
are kept; the others are reported and never followed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import Finding
from .._naming import identifier

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

ROOT_PATHS = ("/", "/api/")
# json-server answers its whole database here: {collection: [records]}.
DATABASE_PATHS = ("/db",)
_PAGING_RELS = frozenset({"next", "prev", "previous", "first", "last", "self", "describedby"})


@dataclass(slots=True)
class Roots:
    """Collections named by API roots: entity name -> path under the base."""

    links: dict[str, str] = field(default_factory=dict)
    roots: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def _href(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("href"), str):
        return str(value["href"])
    return None


def _candidates(answer: Exchange) -> dict[str, str]:
    found: dict[str, str] = {}
    body = answer.body
    if isinstance(body, Mapping):
        nested = body.get("links")
        links: Mapping[str, Any] = nested if isinstance(nested, Mapping) else body
        for name, value in links.items():
            href = _href(value)
            if href and "/" in href and name not in _PAGING_RELS:
                found[str(name)] = href
    for rel, link in answer.links.items():
        if rel not in _PAGING_RELS and link.get("url"):
            found.setdefault(rel, link["url"])
    return found


def read_root(client: ProbeClient, answer: Exchange, roots: Roots) -> None:
    """Add what one root answer links to; links outside the upstream become findings."""
    named = _candidates(answer) if answer.ok and answer.kind == "json" else {}
    if not named:
        return
    roots.roots.append(answer.path)
    for name, href in named.items():
        url = client.resolve(href, answer.url)
        if url is None:
            roots.findings.append(Finding(answer.path, "outside-upstream", f"link {name!r}", "GET"))
            continue
        path = client.relative(url.copy_with(query=None, fragment=None))
        roots.links.setdefault(identifier(name).lower(), path)


def read_database(answer: Exchange, roots: Roots) -> None:
    """A whole-database answer: every key holding a list of records is a collection."""
    body = answer.body if answer.ok and answer.kind == "json" else None
    if not isinstance(body, Mapping):
        return
    found = {
        str(k): v for k, v in body.items() if isinstance(v, list) and v
        and all(isinstance(r, Mapping) for r in v)
    }  # fmt: skip
    if found:
        roots.roots.append(answer.path)
        for name in found:
            roots.links.setdefault(identifier(name).lower(), "/" + name)


def find_roots(client: ProbeClient, first: Exchange | None = None) -> Roots:
    """The base's own answer (already fetched as `first`) and ``/api/``; a database
    index (``/db``) only when neither names a collection."""
    roots = Roots()
    for path in ROOT_PATHS:
        answer = first if (path == "/" and first is not None) else client.get(path)
        read_root(client, answer, roots)
    if not roots.links:
        for path in DATABASE_PATHS:
            read_database(client.get(path), roots)
    return roots
