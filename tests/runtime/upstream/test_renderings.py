"""Entities read through a JSON rendering of an HTML app's pages: a `.json` suffix or a
`?format=json` query on the list and detail paths, kept on every request."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from runtime.mapping import Entity, load_mapping_text

from .support import BASE, client

pytestmark = pytest.mark.anyio

RENDERED = """
format: 1
app: {id: pages}
upstream:
  baseUrl: ${U}
  pagination: {style: page, page: page, size: per_page, items: "", totalHeader: X-Total-Count}
modules: [{name: api}]
entities:
  boards:
    module: api
    path: /boards.json
    detailPath: /boards/{id}.json
    id: {type: integer}
    fields:
      name: {type: string}
  cards:
    module: api
    path: /cards?format=json
    detailPath: /cards/{id}?format=json
    id: {type: integer}
    fields:
      name: {type: string}
"""
ENTITIES = load_mapping_text(RENDERED, env={"U": BASE}).entities
ROW = {"id": 7, "name": "Main"}


def _answer(request: httpx.Request) -> httpx.Response:
    if request.method == "DELETE":
        return httpx.Response(204)
    listing = "/7" not in request.url.path
    if listing and request.method == "GET":
        return httpx.Response(200, json=[ROW], headers={"X-Total-Count": "1"})
    return httpx.Response(201 if request.method == "POST" else 200, json=ROW)


CASES = [
    ("boards", f"{BASE}/boards.json?per_page=5&page=1", f"{BASE}/boards/7.json",
     f"{BASE}/boards.json"),
    ("cards", f"{BASE}/cards?format=json&per_page=5&page=1", f"{BASE}/cards/7?format=json",
     f"{BASE}/cards?format=json"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "listed", "detail", "created"), CASES, ids=[c[0] for c in CASES])
async def test_every_request_keeps_the_rendering(
    name: str, listed: str, detail: str, created: str
) -> None:
    entity: Entity = ENTITIES[name]
    api, seen = client(_answer, pagination=_pages())
    page = await api.list_page(entity, {}, page=1, per_page=5)
    assert [item["id"] for item in page.records] == ["7"] and page.total == 1
    assert await api.get_record(entity, 7) == {"id": "7", "name": "Main"}
    assert (await api.create_record(entity, {"name": "Main"}))["id"] == "7"
    assert (await api.update_record(entity, 7, {"name": "Main"})) is not None
    assert await api.delete_record(entity, 7) == {"id": "7"}
    sent = [(r.method, str(r.url)) for r in seen.requests]
    assert sent == [("GET", listed), ("GET", detail), ("POST", created), ("PATCH", detail),
                    ("DELETE", detail)]  # fmt: skip


def _pages() -> Any:
    return load_mapping_text(RENDERED, env={"U": BASE}).upstream.pagination
