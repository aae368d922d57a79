"""API roots: DRF's index, JSON:API links, Link headers, json-server's /db; never elsewhere."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mapper.probe.live import ProbeClient
from mapper.probe.sources._links import find_roots

from ..fakes import BASE, Fake, json_response, payload


def _drf_root() -> dict[str, str]:
    """The recorded DRF index, as the fake upstream's own host would answer it."""
    root: dict[str, str] = payload("drf-root.json")
    return {k: v.replace("http://127.0.0.1:8000", BASE) for k, v in root.items()}


def _roots(answers: dict[str, httpx.Response]) -> Any:
    fake = Fake(lambda r: answers.get(r.url.path, json_response({"detail": "Not found."}, 404)))
    return find_roots(ProbeClient(BASE, {}, transport=fake.transport)), fake


@pytest.mark.parametrize(
    ("answers", "links", "roots"),
    [
        (
            {"/api/": json_response(_drf_root())},
            {"boards": "/api/boards/", "lists": "/api/lists/", "cards": "/api/cards/",
             "tags": "/api/tags/"},
            ["/api/"],
        ),
        (
            {"/": json_response({"links": {"self": "/", "cards": {"href": "/cards"}}})},
            {"cards": "/cards"},
            ["/"],
        ),
        (
            {"/": httpx.Response(200, json={}, headers={"Link": '</v1/cards>; rel="cards"'})},
            {"cards": "/v1/cards"},
            ["/"],
        ),
        (
            {"/db": json_response({"cards": [{"id": 1}], "profile": {"name": "x"}})},
            {"cards": "/cards"},
            ["/db"],
        ),
    ],
)  # fmt: skip
def test_roots(answers: dict[str, httpx.Response], links: dict[str, str], roots: list[str]) -> None:
    found, _ = _roots(answers)
    assert found.links == links and found.roots == roots


def test_links_elsewhere_are_reported_and_never_followed() -> None:
    root = {"cards": f"{BASE}/api/cards/", "docs": "https://elsewhere.test/api/docs/"}
    found, fake = _roots({"/api/": json_response(root)})
    assert found.links == {"cards": "/api/cards/"}
    assert [(f.code, f.detail) for f in found.findings] == [("outside-upstream", "link 'docs'")]
    assert all(path in ("/", "/api/") for _, path in fake.log)
