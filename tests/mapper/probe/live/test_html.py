"""The links of an HTML answer: anchors with their text, <link> with their rels."""

from __future__ import annotations

from mapper.probe.live import HtmlLink, html_links


def test_links_in_document_order_with_rels_and_text() -> None:
    page = """<!doctype html><html><head>
    <link rel="Service-Desc alternate" href="/openapi.yaml"><link rel="icon" href="">
    </head><body><a href="#top">top</a><a href='/boards'> All <b>boards</b> </a>
    <A HREF="/lists">Lists<a href="javascript:void(0)">x</a><a href="mailto:a@b.test">m</a>
    <a href="/cards?page=2&amp;x=1">Cards</a></body></html>"""
    assert html_links(page) == [
        HtmlLink("link", "/openapi.yaml", frozenset({"service-desc", "alternate"})),
        HtmlLink("a", "/boards", frozenset(), "All boards"),
        HtmlLink("a", "/lists", frozenset(), "Lists"),
        HtmlLink("a", "/cards?page=2&x=1", frozenset(), "Cards"),
    ]


def test_broken_markup_keeps_what_was_read() -> None:
    found = html_links('<a href="/a">A<a href="/b">B<div <<< <a href="/c"')
    assert [(link.href, link.text) for link in found][:1] == [("/a", "A")]
    assert [link.href for link in found] == ["/a", "/b"]
