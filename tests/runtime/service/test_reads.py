"""Reads the query engine answers over the real sample: refs, expand, fields, bounds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.runtime import (
    KANBAN_DRF,
    GrantSpec,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_reads_full"
AUTH = {"x-a2app-token": TOKEN}
GRANTS = (GrantSpec("cred_full", "reader", ("*",), TOKEN),)
CARDS = "/api/collections/cards/records"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[KanbanServer, RuntimeServer]]:
    with (
        start_kanban(seed="rich") as upstream,
        start_runtime(KANBAN_DRF, upstream, grants=GRANTS) as rt,
    ):
        yield upstream, rt


def direct_cards(upstream: KanbanServer) -> list[dict[str, Any]]:
    url = f"{upstream.api}/cards/?page_size=1000"
    return list(httpx.get(url, headers=upstream.headers).json()["results"])


def get(rt: RuntimeServer, **params: str) -> dict[str, Any]:
    response = httpx.get(rt.url + CARDS, params=params, headers=AUTH, timeout=60)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_filter_through_a_ref(served: tuple[KanbanServer, RuntimeServer]) -> None:
    upstream, rt = served
    doc = get(rt, filter='list.title = "Doing" && priority = "high"', perPage="500")
    expected = {
        c["id"]
        for c in direct_cards(upstream)
        if c["list"] == "list_doing" and c["priority"] == "high"
    }
    assert expected and {c["id"] for c in doc["items"]} == expected
    assert doc["totalItems"] == len(expected)


def test_filter_through_list_refs(served: tuple[KanbanServer, RuntimeServer]) -> None:
    upstream, rt = served
    tags = httpx.get(f"{upstream.api}/tags/?page_size=100", headers=upstream.headers).json()[
        "results"
    ]
    name = tags[0]["name"]
    doc = get(rt, filter=f'tags.name ?= "{name}"', perPage="500")
    expected = {c["id"] for c in direct_cards(upstream) if tags[0]["id"] in c["tags"]}
    assert expected and {c["id"] for c in doc["items"]} == expected


def test_sort_through_a_ref(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    items = get(rt, sort="-list.position,id", perPage="500")["items"]
    lists = [c["list"] for c in items]
    assert lists == sorted(lists, key=lambda name: name != "list_doing")


def test_expand_nests_related_records(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    doc = get(rt, filter='id = "card_seed"', expand="list.board,tags")
    (card,) = doc["items"]
    assert card["expand"]["list"]["title"] == "To Do"
    assert card["expand"]["list"]["expand"]["board"]["id"] == "board_main"
    assert "tags" not in card["expand"]  # no tags: nothing to expand, as PocketBase omits it
    tagged = next(c for c in get(rt, perPage="500", expand="tags")["items"] if c["tags"])
    assert [t["id"] for t in tagged["expand"]["tags"]] == tagged["tags"]


def test_fields_project_items(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    doc = get(rt, fields="id,title", perPage="3")
    assert [sorted(c) for c in doc["items"]] == [["id", "title"]] * 3


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"expand": "title"}, "invalid_filter"),
        ({"filter": "bogus.name = 1"}, "invalid_filter"),
        ({"sort": "nope"}, "invalid_filter"),
        ({"perPage": "x"}, "invalid_filter"),
    ],
)
def test_bad_reads_are_refused(
    served: tuple[KanbanServer, RuntimeServer], params: dict[str, str], code: str
) -> None:
    _, rt = served
    response = httpx.get(rt.url + CARDS, params=params, headers=AUTH)
    assert (response.status_code, response.json()["code"]) == (400, code)


def test_paging_caps_and_skip_total(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    doc = get(rt, perPage="5000", skipTotal="true")
    assert (doc["perPage"], doc["totalItems"], doc["totalPages"]) == (1000, -1, -1)
    default = get(rt)
    assert default["perPage"] == 30 and len(default["items"]) == 30


def test_a_query_beyond_the_scan_bound_is_refused_not_truncated(tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__scanLimit=10)
    with (
        start_kanban(seed="rich") as upstream,
        start_runtime(mapping, upstream, grants=GRANTS) as rt,
    ):
        response = httpx.get(
            rt.url + CARDS, params={"filter": 'title ~ "a" || done = true'}, headers=AUTH
        )
        body = response.json()
        assert (response.status_code, body["code"]) == (400, "invalid_filter")
        assert "10" in body["message"]


def test_flat_describe_for_older_clients(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    flat = httpx.get(
        rt.url + "/api/_a2app/describe", params={"format": "flat"}, headers=AUTH
    ).json()
    assert [e["name"] for e in flat["entities"]] == ["boards", "lists", "cards", "tags"]
    assert flat["entities"][2]["fields"]["due"] == {
        "type": "string",
        "max": 10,
        "format": "YYYY-MM-DD",
    }
    assert {op["name"] for op in flat["operations"]} >= {"finish-card", "board-report"}
    bare = httpx.get(rt.url + "/api/_a2app/describe", headers=AUTH).json()
    assert bare["level"] == "root" and "entities" not in bare


def test_a_filter_cut_at_a_raw_ampersand_is_refused(
    served: tuple[KanbanServer, RuntimeServer],
) -> None:
    _, rt = served
    raw = rt.url + CARDS + '?filter=priority="urgent" && done=false'
    response = httpx.get(raw, headers=AUTH)
    body = response.json()
    assert (response.status_code, body["code"]) == (400, "invalid_filter")
    assert "%26%26" in body["message"]
