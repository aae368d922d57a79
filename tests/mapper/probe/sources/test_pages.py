"""An HTML site's links, read as JSON renderings: which count, which path each becomes."""

from __future__ import annotations

import httpx

from mapper.probe.live import ProbeClient
from mapper.probe.sources._pages import MAX_CANDIDATES, PageCollection, read_pages

from ..fakes import BASE, Fake

ROWS = [{"id": 1, "name": "Main"}, {"id": 2, "name": "Old"}]
HOME = """<!doctype html><html><head><link rel="stylesheet" href="/assets/app.css"></head>
<body><a href="#top">Top</a><a href="/boards">Boards</a> <a href="lists?page=2">Lists</a>
<a href="/cards/">Cards</a><a href="/about">About</a><a href="/logout">Sign out</a>
<a href="/users/sign_out">Sign out</a><a href="/authors">Authors</a>
<a href="http://other.example/x">Elsewhere</a><a href="/boards/1">First board</a>
<a href="/assets/logo.png">Logo</a><a href="/missing">Gone</a></body></html>"""
ABOUT = '<html><body><a href="/tags">Tags</a><a href="/">Home</a></body></html>'


def _site(request: httpx.Request) -> httpx.Response:
    """Boards: JSON by suffix only (a page otherwise); lists: by Accept; cards: by
    ?format=json; tags: by Accept, linked from /about only."""
    path, fmt = request.url.path, request.url.params.get("format")
    wants_json = "application/json" in request.headers.get("accept", "")
    if path == "/":
        return httpx.Response(200, html=HOME)
    if path == "/about":
        return httpx.Response(200, html=ABOUT)
    if path == "/boards.json":
        return httpx.Response(200, json=ROWS)
    if path == "/boards/1.json":
        return httpx.Response(200, json=ROWS[0])
    if path in ("/boards", "/boards/1"):
        return httpx.Response(406 if wants_json else 200, html="<html><body></body></html>")
    if path in ("/lists", "/tags") and wants_json:
        return httpx.Response(200, json={"data": ROWS, "total": 2})
    if path == "/cards/" and fmt == "json":
        return httpx.Response(200, json=ROWS)
    if path == "/cards/":
        return httpx.Response(200, html="<html><body><p>cards</p></body></html>")
    return httpx.Response(404, text="")


def test_an_html_site_names_its_collections_by_the_rendering_that_answered() -> None:
    fake = Fake(_site)
    client = ProbeClient(BASE, {}, transport=fake.transport)
    pages = read_pages(client, client.get("/"))
    assert pages.found == {
        "boards": PageCollection("boards", "/boards.json", "/boards/{id}.json",
                                 ".json suffix", "/"),
        "cards": PageCollection("cards", "/cards/?format=json", "/cards/{id}?format=json",
                                "?format=json", "/"),
        "lists": PageCollection("lists", "/lists", None, "Accept: application/json", "/"),
        "tags": PageCollection("tags", "/tags", None, "Accept: application/json", "/about"),
    }  # fmt: skip
    assert pages.pages == ["/", "/about"]
    asked = {path.split("?")[0] for _, path in fake.log}
    assert not asked & {"/logout", "/users/sign_out", "/assets/app.css", "/assets/logo.png", "/x"}
    assert "/authors" in asked  # a name is no sign-out link
    assert fake.methods() == {"GET"}


def test_a_record_page_and_a_dead_link_get_no_other_rendering() -> None:
    fake = Fake(_site)
    client = ProbeClient(BASE, {}, transport=fake.transport)
    read_pages(client, client.get("/"))
    asked = [path for _, path in fake.log]
    assert "/missing.json" not in asked and "/missing?format=json" not in asked
    # /boards/1 is a page too (406 to JSON): its renderings are read, and it is one record.
    assert "/boards/1.json" in asked and "/boards/1" in asked


def test_the_links_read_are_bounded() -> None:
    many = "".join(f'<a href="/p{i}">p{i}</a>' for i in range(30))

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path in ("/",) or request.url.path.startswith("/p"):
            if request.url.path.endswith(".json") or "format" in request.url.params:
                return httpx.Response(404, text="")
            prefix = request.url.path.rstrip("/")
            links = many.replace('href="/p', f'href="{prefix}/p') if prefix else many
            return httpx.Response(200, html=f"<html><body>{links}</body></html>")
        return httpx.Response(404, text="")

    fake = Fake(handler)
    client = ProbeClient(BASE, {}, transport=fake.transport)
    found = read_pages(client, client.get("/"))
    assert found.found == {}
    plain = [p for _, p in fake.log if not p.endswith(".json") and "format=" not in p]
    assert len(plain) == 1 + MAX_CANDIDATES


def test_a_linked_page_that_refuses_the_prober_is_a_finding() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/":
            return httpx.Response(200, html='<a href="/private">Private</a><a href="/open">O</a>')
        if request.url.path == "/private":
            return httpx.Response(401, text="HTTP Token: Access denied.\n")
        return httpx.Response(200, json=[{"id": 1}])

    fake = Fake(handler)
    client = ProbeClient(BASE, {}, transport=fake.transport)
    pages = read_pages(client, client.get("/"))
    assert list(pages.found) == ["open"]
    assert [(f.path, f.reason) for f in pages.findings] == [
        ("/private", "auth-refused: a page / links answered 401")
    ]
    assert ("GET", "/private.json") not in fake.log  # a refusal has no other rendering
