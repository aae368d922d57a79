"""The foreign-stack samples (Rails, PocketBase, json-server), over real HTTP.

Nothing here skips: a stack that cannot be installed or started fails its tests with the
launcher's message (e.g. "run `bash samples/setup.sh`").
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from samples.jsonserver_kanban.server import json_server_db
from samples.pocketbase_kanban import server as pocketbase_server
from samples.pocketbase_kanban.schema import pb_id
from samples.rails_kanban.seed import rails_ids
from samples.stacks_common.dataset import dataset
from samples.stacks_common.launch import StackError
from tests.fixtures._procs import group_members
from tests.fixtures.servers import KanbanServer
from tests.fixtures.stacks import StackServer, StackStartError, start_stack

T0_RAILS = "2026-07-30T00:00:00.000Z"
T0_PB = "2026-07-30 00:00:00.000Z"
STACKS = ("rails", "pocketbase", "jsonserver")


@pytest.fixture(scope="module", params=STACKS)
def default_server(request: pytest.FixtureRequest) -> Iterator[StackServer]:
    with start_stack(request.param) as server:
        yield server


@pytest.fixture(scope="module", params=STACKS)
def rich_server(request: pytest.FixtureRequest) -> Iterator[StackServer]:
    with start_stack(request.param, seed="rich") as server:
        yield server


def get(server: StackServer, name: str, **params: Any) -> httpx.Response:
    response = httpx.get(server.collection(name), params=params, headers=server.headers)
    assert response.status_code == 200, response.text
    return response


def everything(server: StackServer, name: str) -> list[dict[str, Any]]:
    """All records of a collection, in id order."""
    if server.stack == "pocketbase":
        items = get(server, name, perPage=500, sort="id").json()["items"]
        for item in items:
            assert item.pop("collectionId").startswith("pbc_")
        return list(items)
    params = {"per_page": 100} if server.stack == "rails" else {}
    return list(get(server, name, **params).json())


# --------------------------------------------------------------------------- seed


def test_default_seed_is_exact(default_server: StackServer) -> None:
    expected: dict[str, dict[str, list[dict[str, Any]]]] = {
        "rails": {
            "boards": [{"id": 1, "name": "Main board", "archived": False, **rails_times()}],
            "lists": [
                {"id": 1, "board_id": 1, "title": "To Do", "position": 1.0, **rails_times()},
                {"id": 2, "board_id": 1, "title": "Doing", "position": 2.0, **rails_times()},
            ],
            "tags": [],
            "cards": [
                {
                    "id": 1,
                    "list_id": 1,
                    "title": "Welcome card",
                    "priority": "low",
                    "due": None,
                    "done": False,
                    **rails_times(),
                    "tag_ids": [],
                }
            ],
        },
        "pocketbase": {
            "boards": [pb("boards", "boardmain000001", name="Main board", archived=False)],
            "lists": [
                pb("lists", "listdoing000001", title="Doing", position=2, board="boardmain000001"),
                pb("lists", "listtodo0000001", title="To Do", position=1, board="boardmain000001"),
            ],
            "tags": [],
            "cards": [
                pb(
                    "cards",
                    "cardseed0000001",
                    title="Welcome card",
                    list="listtodo0000001",
                    priority="low",
                    due="",
                    done=False,
                    tags=[],
                )
            ],
        },
        "jsonserver": json_server_db("default"),
    }
    for name, records in expected[default_server.stack].items():
        assert everything(default_server, name) == records, name


def rails_times() -> dict[str, str]:
    return {"created_at": T0_RAILS, "updated_at": T0_RAILS}


def pb(collection: str, id_: str, **fields: Any) -> dict[str, Any]:
    return {"collectionName": collection, "id": id_, **fields, "created": T0_PB, "updated": T0_PB}


def test_rich_seed_matches_the_dataset(rich_server: StackServer) -> None:
    data = dataset("rich")
    cards = everything(rich_server, "cards")
    assert len(cards) == len(data["cards"]) == 61
    by_id = {card["id"]: card for card in cards}
    rails = rails_ids("rich")["cards"]
    for record in data["cards"]:
        key = {"rails": rails[record["id"]], "pocketbase": pb_id(record["id"])}
        card = by_id[key.get(rich_server.stack, record["id"])]
        assert card["title"] == record["title"]
        assert card["priority"] == record["priority"]
        assert card["done"] is record["done"]
        due = card["due"][:10] if card["due"] else None
        assert due == (record["due"].isoformat() if record["due"] else None)


def test_dataset_matches_the_django_rich_seed(kanban_rich: KanbanServer) -> None:
    response = httpx.get(
        f"{kanban_rich.api}/cards/", params={"page_size": 1000}, headers=kanban_rich.headers
    )
    django = {card["id"]: card for card in response.json()["results"]}
    for record in dataset("rich")["cards"]:
        card = django.pop(record["id"])
        assert card["title"] == record["title"] and card["list"] == record["list"]
        assert card["priority"] == record["priority"] and card["done"] is record["done"]
        assert card["due"] == (record["due"].isoformat() if record["due"] else None)
        assert sorted(card["tags"]) == sorted(record["tags"])
        assert dt.datetime.fromisoformat(card["created"]) == record["created"]
    assert django == {}


# --------------------------------------------------------------------------- auth


def test_auth_is_as_documented(default_server: StackServer) -> None:
    url = default_server.collection("cards")
    anonymous = httpx.get(url)
    if default_server.stack == "rails":
        assert default_server.token and len(default_server.token) == 40
        assert anonymous.status_code == 401
        assert anonymous.text == "HTTP Token: Access denied.\n"
        assert anonymous.headers["www-authenticate"] == 'Token realm="Application"'
        assert httpx.get(url, headers={"Authorization": "Token wrong"}).status_code == 401
        bearer = {"Authorization": f"Bearer {default_server.token}"}
        assert httpx.get(url, headers=bearer).status_code == 200
        assert httpx.get(f"{default_server.url}/up").text == "ok"
    elif default_server.stack == "pocketbase":
        assert default_server.token and default_server.token.count(".") == 2  # a JWT
        assert anonymous.status_code == 403
        assert anonymous.json() == {
            "data": {},
            "message": "Only superusers can perform this action.",
            "status": 403,
        }
        assert httpx.get(url, headers={"Authorization": "wrong"}).status_code == 403
        bearer = {"Authorization": f"Bearer {default_server.token}"}
        assert httpx.get(url, headers=bearer).status_code == 200
    else:
        assert default_server.token is None and default_server.headers == {}
        assert anonymous.status_code == 200
    assert get(default_server, "cards").status_code == 200


# --------------------------------------------------------------------------- paging


def test_paging_reports_totals(rich_server: StackServer) -> None:
    if rich_server.stack == "pocketbase":
        body = get(rich_server, "cards", page=2, perPage=25, sort="id").json()
        assert (body["page"], body["perPage"], body["totalItems"], body["totalPages"]) == (
            2,
            25,
            61,
            3,
        )
        assert len(body["items"]) == 25
        assert get(rich_server, "cards", page=9, perPage=25).json()["items"] == []
        return
    rails = rich_server.stack == "rails"
    params = {"page": 2, "per_page": 25} if rails else {"_page": 2, "_limit": 25}
    response = get(rich_server, "cards", **params)
    assert response.headers["x-total-count"] == "61"
    assert len(response.json()) == 25
    parts = [part.split("; ") for part in response.headers["link"].split(", ")]
    links = {rel: url for url, rel in parts}
    assert set(links) == {'rel="first"', 'rel="prev"', 'rel="next"', 'rel="last"'}
    assert ("page=3" in links['rel="next"']) and ("page=3" in links['rel="last"'])
    if rich_server.stack == "rails":
        assert [card["id"] for card in response.json()] == list(range(26, 51))
        assert get(rich_server, "cards", page=9, per_page=25).json() == []
        capped = get(rich_server, "cards", per_page=1000)  # max_per_page is 100
        assert "per_page=100>" in capped.headers["link"] and len(capped.json()) == 61


DOING_AND_DONE: dict[str, dict[str, Any]] = {
    "rails": {"list_id": 2, "done": "true", "per_page": 100},
    "pocketbase": {"filter": "list='listdoing000001' && done=true", "perPage": 100},
    "jsonserver": {"listId": "list_doing", "done": "true"},
}
NEWEST_FIRST: dict[str, dict[str, Any]] = {
    "rails": {"sort": "-created_at", "per_page": 1},
    "pocketbase": {"sort": "-created", "perPage": 1},
    "jsonserver": {"_sort": "created", "_order": "desc", "_limit": 1},
}


def test_filters_and_sort(rich_server: StackServer) -> None:
    stack = rich_server.stack
    found = get(rich_server, "cards", **DOING_AND_DONE[stack]).json()
    found = found["items"] if stack == "pocketbase" else found
    assert len(found) == 5
    first = get(rich_server, "cards", **NEWEST_FIRST[stack]).json()
    first = first["items"] if stack == "pocketbase" else first
    assert first[0]["title"] == "Welcome card"
    if stack == "rails":
        bad = httpx.get(
            rich_server.collection("cards"), params={"sort": "nope"}, headers=rich_server.headers
        )
        assert (bad.status_code, bad.json()) == (400, {"error": "unknown sort field: nope"})
    if stack == "pocketbase":
        bad = httpx.get(
            rich_server.collection("cards"),
            params={"filter": "nope='x'"},
            headers=rich_server.headers,
        )
        assert bad.status_code == 400


# --------------------------------------------------------------------------- writes


CREATE = {
    "rails": {"title": "Round trip", "list_id": 2, "priority": "high", "due": "2026-12-01"},
    "pocketbase": {
        "title": "Round trip",
        "list": "listdoing000001",
        "priority": "high",
        "due": "2026-12-01",
    },
    "jsonserver": {
        "title": "Round trip",
        "listId": "list_doing",
        "priority": "high",
        "due": "2026-12-01",
    },
}


@pytest.mark.parametrize("stack", STACKS)
def test_create_update_delete_round_trip(stack: str) -> None:
    with start_stack(stack) as server, httpx.Client(headers=server.headers, timeout=10) as client:
        url = server.collection("cards")
        created = client.post(url, json=CREATE[stack])
        assert created.status_code == {"pocketbase": 200}.get(stack, 201), created.text
        card = created.json()
        assert card["title"] == "Round trip" and card["due"].startswith("2026-12-01")
        if stack != "pocketbase":
            assert created.headers["location"] == f"{url}/{card['id']}"
        changed = client.patch(f"{url}/{card['id']}", json={"done": True})
        assert changed.status_code == 200 and changed.json()["done"] is True
        assert client.get(f"{url}/{card['id']}").json()["done"] is True
        deleted = client.delete(f"{url}/{card['id']}")
        assert deleted.status_code == {"jsonserver": 200}.get(stack, 204)
        gone = client.get(f"{url}/{card['id']}")
        assert gone.status_code == 404
        if stack == "rails":
            assert gone.json()["error"].startswith("Couldn't find Card with 'id'=")
            invalid = client.post(url, json={"title": "", "priority": "bogus"})
            assert invalid.status_code == 422
            assert invalid.json() == {
                "list": ["must exist"],
                "title": ["can't be blank"],
                "priority": ["is not included in the list"],
            }
        if stack == "pocketbase":
            invalid = client.post(url, json={"title": "", "priority": "bogus"})
            assert invalid.status_code == 400
            assert {k: v["code"] for k, v in invalid.json()["data"].items()} == {
                "title": "validation_required",
                "priority": "validation_invalid_value",
            }


@pytest.mark.parametrize("stack", STACKS)
def test_data_dir_is_reused(stack: str, tmp_path: Path) -> None:
    with start_stack(stack, data_dir=tmp_path) as first:
        created = httpx.post(first.collection("tags"), json={"name": "kept"}, headers=first.headers)
        assert created.status_code in (200, 201), created.text
    with start_stack(stack, data_dir=tmp_path) as second:
        names = [tag["name"] for tag in everything(second, "tags")]
        assert names == ["kept"]
        if stack == "rails":
            assert second.token == first.token


# --------------------------------------------------------------------------- processes


@pytest.mark.parametrize("stack", STACKS)
def test_stop_ends_the_whole_process_group(stack: str) -> None:
    with start_stack(stack) as server:
        members = group_members(server.process.pid)
        assert server.pid == server.process.pid
        assert len(members) >= 2, members  # the launcher and the real server
        server.stop()
        assert server.process.returncode == 0  # SIGTERM: clean exit
        assert group_members(server.process.pid) == []
        with pytest.raises(httpx.TransportError):
            httpx.get(server.collection("cards"), timeout=2)


@pytest.mark.parametrize("stack", STACKS)
def test_server_dies_with_its_launcher(stack: str, tmp_path: Path) -> None:
    with start_stack(stack, data_dir=tmp_path) as server:
        members = group_members(server.process.pid)
        os.kill(server.pid, signal.SIGKILL)  # the launcher only, not the group
        server.process.wait(10)
        deadline = time.monotonic() + 10
        while group_members(server.process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_members(server.process.pid) == [], members


# --------------------------------------------------------------------------- refusals


def test_a_missing_install_fails_with_the_setup_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("A2APP_SAMPLES_CACHE", str(tmp_path))  # no json-server there
    with pytest.raises(StackStartError, match=r"run `bash samples/setup.sh` as root"):
        start_stack("jsonserver").__enter__()


def test_an_unknown_pocketbase_binary_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pocketbase_server, "SHA256", "0" * 64)
    with pytest.raises(StackError, match=r"refusing to run .*pocketbase: sha256 7139ae3d"):
        pocketbase_server.pocketbase_binary()
