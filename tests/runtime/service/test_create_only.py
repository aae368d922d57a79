"""A field written on create only, over real HTTP: refused in an update before the upstream
sees it, with every other violation; written as sent on create."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_writer_token"
FULL = {"x-a2app-token": TOKEN, "x-a2app-agent": "test-agent"}
GRANTS = (GrantSpec("cred_writer", "writer", ("*",), TOKEN),)
TITLE = "      title: {type: string, required: true, max: 200, evidence: [openapi, options]}"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KanbanServer, RuntimeServer]]:
    text = KANBAN_DRF.read_text()
    assert text.count(TITLE) == 1
    path: Path = tmp_path_factory.mktemp("create-only") / "kanban-drf.yaml"
    path.write_text(text.replace(TITLE, TITLE.replace("max: 200,", "max: 200, createOnly: true,")))
    with start_kanban() as upstream, start_runtime(path, upstream, grants=GRANTS) as rt:
        yield upstream, rt


def test_an_update_naming_a_create_only_field_is_refused_with_every_violation(
    stack: tuple[KanbanServer, RuntimeServer],
) -> None:
    upstream, rt = stack
    made = httpx.post(rt.url + "/api/collections/cards/records", json={"title": "Named once"},
                      headers=FULL, timeout=30)  # fmt: skip
    assert made.status_code == 200, made.text
    card = made.json()["id"]
    response = httpx.patch(rt.url + f"/api/collections/cards/records/{card}",
                           json={"title": "Renamed", "priority": "asap", "done": True},
                           headers=FULL, timeout=30)  # fmt: skip
    assert response.status_code == 400, response.text
    body = response.json()
    assert [(v["code"], v["field"]) for v in body["violations"]] == [
        ("read_only_field", "title"),
        ("invalid_enum", "priority"),
    ]
    direct = httpx.get(upstream.api + f"/cards/{card}/", headers=upstream.headers, timeout=30)
    assert direct.json()["title"] == "Named once" and direct.json()["done"] is False
    fine = httpx.patch(rt.url + f"/api/collections/cards/records/{card}", json={"done": True},
                       headers=FULL, timeout=30)  # fmt: skip
    assert fine.status_code == 200 and fine.json()["title"] == "Named once"
