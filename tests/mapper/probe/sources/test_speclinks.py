"""Where a root answer says the spec is: Link headers, JSON values, HTML links."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from mapper.probe.live import ProbeClient
from mapper.probe.sources._speclinks import spec_links

from ..fakes import BASE, Fake


@dataclass(frozen=True)
class Root:
    name: str
    body: Any
    expected: list[tuple[str, str]]
    headers: dict[str, str] = field(default_factory=dict)


HTML_HEAD = '<!doctype html><html><head><link rel="stylesheet" href="/app.css">'
ROOTS = [
    Root("an RFC 8631 service-desc header", {"ok": True},
         [("/api/openapi.yaml", 'Link rel="service-desc" on /')],
         {"Link": '</api/openapi.yaml>; rel="service-desc", </about>; rel="help"'}),
    Root("describedby with more rels in one value", {},
         [("/spec.json", 'Link rel="describedby" on /')],
         {"Link": '</spec.json>; rel="describedby alternate"'}),
    Root("a JSON key naming the spec", {"name": "shop", "openapi": "/v1/openapi.json"},
         [("/v1/openapi.json", "the root answer's openapi")]),
    Root("JSON:API links.describedby as an object", {"links": {"describedby": {"href": "/d"}}},
         [("/d", "the root answer's links.describedby")]),
    Root("a value whose path names a spec", {"docs": {"machine": "/swagger/v1/swagger.json"}},
         [("/swagger/v1/swagger.json", "the root answer's docs.machine")]),
    Root("collections are not specs", {"cards": "/api/cards/", "lists": "/api/lists/"}, []),
    Root("an HTML <link rel=service-desc>",
         HTML_HEAD + '<link rel="service-desc" href="/openapi.yaml"></head><body></body></html>',
         [("/openapi.yaml", '<link rel="service-desc"> in /')]),
    Root("an HTML anchor to a swagger document",
         HTML_HEAD + '</head><body><a href="/boards">Boards</a>'
         '<a href="/api-docs/v2/swagger.json">API</a></body></html>',
         [("/api-docs/v2/swagger.json", "<a href> in /")]),
    Root("an HTML anchor whose text calls a document the spec",
         HTML_HEAD + '</head><body><a href="/files/contract.yaml">OpenAPI spec</a>'
         '<a href="/files/logo.json">Logo</a></body></html>',
         [("/files/contract.yaml", "<a href> in /")]),
    Root("the header first, each href once",
         HTML_HEAD + '<link rel="describedby" href="/o.json"></head></html>',
         [("/o.json", 'Link rel="service-desc" on /')], {"Link": '</o.json>; rel="service-desc"'}),
]  # fmt: skip


@pytest.mark.parametrize("root", ROOTS, ids=lambda r: r.name)
def test_spec_links_of_a_root_answer(root: Root) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(root.body, str):
            return httpx.Response(200, html=root.body, headers=root.headers)
        return httpx.Response(200, json=root.body, headers=root.headers)

    answer = ProbeClient(BASE, {}, transport=Fake(handler).transport).get("/")
    assert [(link.href, link.why) for link in spec_links(answer)] == root.expected
