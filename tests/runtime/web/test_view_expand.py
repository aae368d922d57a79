"""One record honours `expand` (and `fields`) exactly as a list does, in front of the Django
sample's rich seed: the same related records, nested the same way, and the same refusal
for a path that is not a ref, whether or not a record is there to expand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer

TOKEN = "a2app_view_expand_token"
AUTH = {"x-a2app-token": TOKEN}
CARDS = "/api/collections/cards/records"


@pytest.fixture(scope="module")
def runtime(kanban_rich: KanbanServer) -> Iterator[RuntimeServer]:
    grants = (GrantSpec("cred_x", "x", ("*",), TOKEN),)
    with start_runtime(KANBAN_DRF, kanban_rich, grants=grants) as served:
        yield served


def _get(runtime: RuntimeServer, path: str, **params: str) -> httpx.Response:
    return httpx.get(runtime.url + path, params=params, headers=AUTH, timeout=30)


def _tagged_card(runtime: RuntimeServer) -> str:
    items = _get(runtime, CARDS, perPage="500").json()["items"]
    return str(next(c["id"] for c in items if c["tags"] and c["list"]))


@pytest.mark.parametrize(
    "query",
    [
        {"expand": "list"},
        {"expand": "tags"},
        {"expand": "list.board,tags"},
        {"expand": " list , list.board "},
        {"expand": "list,tags", "fields": "id,expand.list.title,expand.tags.name"},
    ],
    ids=lambda q: "&".join(f"{k}={v}" for k, v in q.items()),
)
def test_one_record_is_expanded_as_its_list_item(
    runtime: RuntimeServer, query: dict[str, str]
) -> None:
    card = _tagged_card(runtime)
    one = _get(runtime, f"{CARDS}/{card}", **query)
    listed = _get(runtime, CARDS, filter=f'id = "{card}"', **query)
    assert one.status_code == listed.status_code == 200, (one.text, listed.text)
    (item,) = listed.json()["items"]
    record: dict[str, Any] = one.json()
    assert record == item and "expand" in record


def test_nested_expand_holds_the_upstream_records(runtime: RuntimeServer) -> None:
    card = _tagged_card(runtime)
    record = _get(runtime, f"{CARDS}/{card}", expand="list.board,tags").json()
    a_list = record["expand"]["list"]
    assert a_list["id"] == record["list"]
    assert a_list["expand"]["board"]["id"] == a_list["board"]
    assert [t["id"] for t in record["expand"]["tags"]] == record["tags"]


@pytest.mark.parametrize("expand", ["nope", "title", "list.nope", "tags.name"])
def test_a_path_that_is_not_a_ref_is_refused_alike(runtime: RuntimeServer, expand: str) -> None:
    card = _tagged_card(runtime)
    answers = [
        _get(runtime, f"{CARDS}/{card}", expand=expand),
        _get(runtime, CARDS, expand=expand),
        # no record to expand: refused all the same
        _get(runtime, CARDS, expand=expand, filter='id = "card_none"'),
        _get(runtime, f"{CARDS}/card_none", expand=expand),
    ]
    bodies = [(a.status_code, a.json()) for a in answers]
    assert all(body == bodies[0] for body in bodies), bodies
    status, body = bodies[0]
    assert (status, body["code"]) == (400, "invalid_filter")
    assert "Cannot expand" in body["message"]
