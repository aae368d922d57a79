"""Collections an HTML site links: its pages, read as their JSON renderings.

An app with no spec and an HTML home page (a Rails or Django app serving pages and
JSON from the same routes) names its collections in its links. Every link under
the base on the home page, and one level down on the HTML pages it links (bounded),
is read with ``Accept: application/json`` (what every probe request asks for), then
with a ``.json`` suffix, then with ``?format=json``; a rendering counts when it
answers a JSON list of records (a bare array or a known envelope). The rendering
that answered becomes the collection's path, and its detail route is written the
same way (``/boards.json`` → ``/boards/{id}.json``). Keyed on ``text/html`` answers
and their links only: no stack is named.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._errors import Finding
from .._naming import is_placeholder, segments
from ..live import envelope_of
from ._collnames import distinct_names

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

# Bounds: links taken from one page, and links read in all (each costs up to 3 GETs).
MAX_PAGE_LINKS = 40
MAX_CANDIDATES = 60
HTML_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
_STATIC = re.compile(
    r"\.(css|js|mjs|map|png|jpe?g|gif|svg|ico|webp|avif|woff2?|ttf|otf|eot|pdf|zip|gz|"
    r"txt|xml|rss|atom|csv|xlsx?|mp[34]|webm)$",
    re.IGNORECASE,
)
# A link that ends a browser session when followed: a GET, but not a read of data (and
# a session cookie given with --header would be spent by it).
_SIGN_OUT = re.compile(r"^(log|sign)[-_]?(out|off)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Rendering:
    """One way of asking a page for JSON; ``{path}`` is the page's own path."""

    name: str
    list_path: Callable[[str], str]
    detail_path: Callable[[str], str | None]


def _stem(path: str) -> str:
    return path.rstrip("/") or "/"


RENDERINGS = (
    Rendering("Accept: application/json", lambda p: p, lambda p: None),
    Rendering(".json suffix", lambda p: _stem(p) + ".json", lambda p: _stem(p) + "/{id}.json"),
    Rendering("?format=json", lambda p: p + "?format=json",
              lambda p: _stem(p) + "/{id}?format=json"),
)  # fmt: skip


ACCEPT_RENDERING = RENDERINGS[0].name


def detail_renderings(path: str) -> list[str]:
    """Other detail routes of a list at `path` than the usual ``<path>/{id}``."""
    return [d for r in RENDERINGS[1:] if (d := r.detail_path(path)) is not None]


@dataclass(frozen=True, slots=True)
class PageCollection:
    name: str
    path: str  # as the rendering answers: /boards, /boards.json, /boards?format=json
    detail_path: str | None  # None: the usual ``<path>/{id}``
    rendering: str
    page: str  # the HTML page that linked it


@dataclass(slots=True)
class Pages:
    found: dict[str, PageCollection] = field(default_factory=dict)
    # The HTML pages whose links named a collection.
    pages: list[str] = field(default_factory=list)
    # Linked pages that refused the prober (401/403): whatever they hold was not read.
    findings: list[Finding] = field(default_factory=list)


def _html(client: ProbeClient, answer: Exchange) -> Exchange:
    """The page as HTML: asked again for HTML when JSON was refused (a 406, say)."""
    if answer.kind == "html" or answer.status in (401, 403, 404) or answer.kind == "json":
        return answer
    return client.get(answer.path, accept=HTML_ACCEPT)


def _links(client: ProbeClient, page: Exchange) -> list[str]:
    """Paths under the base that the page links, without queries, fragments or assets."""
    from ..live import html_links  # the HTML reader loads with the live probe that reads pages

    if page.kind != "html" or not page.ok:
        return []
    paths: list[str] = []
    for link in html_links(page.text or ""):
        url = client.resolve(link.href, page.url)
        if url is None or link.tag != "a":
            continue
        path = client.relative(url.copy_with(query=None, fragment=None))
        if path == page.path or _STATIC.search(path):
            continue
        if any(_SIGN_OUT.match(s) for s in segments(path)):
            continue
        if any(is_placeholder(s) for s in segments(path)) or path in paths:
            continue
        paths.append(path)
    return paths[:MAX_PAGE_LINKS]


def _lists_records(answer: Exchange) -> bool:
    if not answer.ok or answer.kind != "json":
        return False
    return envelope_of(answer.body, answer.content_type) is not None


def _as_collection(client: ProbeClient, path: str) -> tuple[Rendering | None, Exchange]:
    """The first rendering of `path` that lists records, and the plain answer."""
    plain = client.get(path)
    if _lists_records(plain):
        return RENDERINGS[0], plain
    # Only a page (HTML, or JSON refused) may have another rendering; a record, a
    # refusal or a dead link has none.
    if (plain.ok and plain.kind == "json") or plain.status in (401, 403, 404, 410):
        return None, plain
    if plain.status >= 500 or plain.failure is not None:
        return None, plain
    for rendering in RENDERINGS[1:]:
        if _lists_records(client.get(rendering.list_path(path))):
            return rendering, plain
    return None, plain


def read_pages(client: ProbeClient, first: Exchange) -> Pages:
    """Collections the home page (`first`, the base's answer) and its pages link."""
    pages = Pages()
    home = _html(client, first)
    queue = [(path, home.path, 1) for path in _links(client, home)]
    seen = {home.path, *(path for path, _, _ in queue)}
    found: dict[str, PageCollection] = {}
    tried = 0
    while queue and tried < MAX_CANDIDATES:
        path, page, depth = queue.pop(0)
        tried += 1
        rendering, answer = _as_collection(client, path)
        if answer.status in (401, 403):
            detail = f"a page {page} links answered {answer.status}"
            pages.findings.append(Finding(path, "auth-refused", detail, "GET"))
        if rendering is not None:
            listed = rendering.list_path(path)
            found.setdefault(
                listed,
                PageCollection("", listed, rendering.detail_path(path), rendering.name, page),
            )
            continue
        if depth == 1:
            for link in _links(client, _html(client, answer)):
                if link not in seen:
                    seen.add(link)
                    queue.append((link, path, 2))
    names = distinct_names([_stem(c.path.split("?", 1)[0]).removesuffix(".json")
                            for c in found.values()])  # fmt: skip
    for coll in found.values():
        name = names[_stem(coll.path.split("?", 1)[0]).removesuffix(".json")]
        if name not in pages.found:
            pages.found[name] = PageCollection(name, coll.path, coll.detail_path,
                                               coll.rendering, coll.page)  # fmt: skip
            if coll.page not in pages.pages:
                pages.pages.append(coll.page)
    return pages
