"""A relation level reads only the labels it can show, however many ids the record holds."""

from __future__ import annotations

import httpx

from tests.fixtures.faultproxy import FaultProxy
from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, start_runtime
from tests.fixtures.servers import KanbanServer

TOKEN = "a2app_relation_token"
TAGS = 150


def test_a_relation_of_many_ids_reads_no_more_labels_than_a_level_shows(
    kanban: KanbanServer,
) -> None:
    with httpx.Client(base_url=kanban.api, headers=kanban.headers, timeout=30) as upstream:
        ids = [
            upstream.post("/tags/", json={"name": f"many {n}"}).json()["id"] for n in range(TAGS)
        ]
        card = upstream.post("/cards/", json={"title": "Many tags", "tags": ids}).json()["id"]
    grants = (GrantSpec("cred_rel", "rel", ("*",), TOKEN),)
    with FaultProxy(kanban) as proxy, start_runtime(KANBAN_DRF, proxy, grants=grants) as rt:
        proxy.forget()
        level = httpx.get(
            f"{rt.url}/api/_a2app/describe/labels/cards/{card}/tags",
            headers={"x-a2app-token": TOKEN},
            timeout=60,
        )
        assert level.status_code == 404  # cards live in module board, not labels
        level = httpx.get(
            f"{rt.url}/api/_a2app/describe/board/cards/{card}/tags",
            headers={"x-a2app-token": TOKEN},
            timeout=60,
        )
        doc = level.json()
        assert level.status_code == 200, doc
        shown = doc["items"]
        assert len(shown) + doc["truncated"] == TAGS
        assert all(item["label"] == f"many {ids.index(item['id'])}" for item in shown)
        tag_reads = [s for s in proxy.requests if s.path.startswith("/api/tags/")]
        assert len(tag_reads) <= 100
