"""The Directus sample (`samples/directus_kanban`), over real HTTP.

Nothing here skips: without the cached install (`bash samples/setup.sh`) the start
fails with the launcher's message.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from samples.directus_kanban import schema
from samples.stacks_common.dataset import dataset
from tests.fixtures._procs import group_members
from tests.fixtures.stacks import StackServer, StackStartError, start_directus, start_stack

T0 = "2026-07-30T00:00:00.000Z"


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_directus(seed="rich") as upstream:
        yield upstream


def everything(server: StackServer, name: str, **params: Any) -> list[dict[str, Any]]:
    answer = httpx.get(
        server.collection(name), params={"limit": -1, "sort": "id", **params},
        headers=server.headers,
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


def test_the_seed_is_the_dataset(server: StackServer) -> None:
    data = dataset("rich")
    boards = everything(server, "boards")
    assert boards[0] == {"id": 1, "name": "Main board", "archived": False, "lists": [1, 2],
                         "date_created": T0, "date_updated": None}  # fmt: skip
    assert [b["name"] for b in boards] == [b["name"] for b in data["boards"]]
    lists = everything(server, "lists")
    assert [(x["id"], x["title"], x["position"], x["board"]) for x in lists] == [
        (1, "To Do", 1, 1), (2, "Doing", 2, 1),
    ]  # fmt: skip
    tags = everything(server, "tags")
    assert [t["name"] for t in tags] == [t["name"] for t in data["tags"]]
    cards = everything(server, "cards")
    assert len(cards) == len(data["cards"]) == 61
    ids = schema.directus_ids("rich")
    # The many-to-many is answered as junction rows; through them, the dataset's tags.
    tagged = everything(server, "cards", fields="id,tags.tags_id")
    for card, record in zip(tagged, data["cards"], strict=True):
        assert [t["tags_id"] for t in card["tags"]] == [ids["tags"][t] for t in record["tags"]]
    for n, (card, record) in enumerate(zip(cards, data["cards"], strict=True), start=1):
        assert card["id"] == ids["cards"][record["id"]] == n
        assert card["title"] == record["title"] and card["priority"] == record["priority"]
        assert card["list"] == ids["lists"][record["list"]]
        assert card["done"] is record["done"]
        assert card["due"] == (record["due"].isoformat() if record["due"] else None)
        assert card["estimate"] == schema.estimate(n)
        # No cast-boolean: the 0 or 1 SQLite stores, where the metadata says boolean.
        assert card["blocked"] == int(schema.blocked(n)) and type(card["blocked"]) is int
        assert card["date_created"] == schema.directus_time(record["created"])


def test_envelopes_paging_and_totals(server: StackServer) -> None:
    url, headers = server.collection("cards"), server.headers
    page = httpx.get(url, params={"limit": 25, "offset": 50, "sort": "id",
                                  "meta": "total_count"}, headers=headers).json()  # fmt: skip
    assert [c["id"] for c in page["data"]] == list(range(51, 62))
    assert page["meta"] == {"total_count": 61}
    assert "meta" not in httpx.get(url, params={"limit": 1}, headers=headers).json()
    one = httpx.get(f"{url}/2", headers=headers).json()
    assert set(one) == {"data"} and one["data"]["id"] == 2
    default = httpx.get(url, headers=headers).json()["data"]
    assert len(default) == 61  # under Directus's default limit of 100


def test_filters_and_sort(server: StackServer) -> None:
    found = everything(server, "cards", **{"filter[list][_eq]": 2, "filter[done][_eq]": "true"})
    assert len(found) == 5 and all(c["list"] == 2 and c["done"] for c in found)
    newest = everything(server, "cards", sort="-date_created", limit=1)
    assert newest[0]["title"] == "Welcome card"


def test_metadata_lists_collections_and_fields(server: StackServer) -> None:
    listed = httpx.get(f"{server.url}/collections", headers=server.headers).json()["data"]
    ours = sorted(c["collection"] for c in listed if not c["meta"].get("system"))
    assert ours == ["boards", "cards", "cards_tags", "lists", "tags"]
    assert all(c["collection"].startswith("directus_") for c in listed if c["meta"].get("system"))
    fields = httpx.get(f"{server.url}/fields/cards", headers=server.headers).json()["data"]
    by_name = {f["field"]: f for f in fields}
    assert by_name["list"]["schema"]["foreign_key_table"] == "lists"
    assert by_name["title"]["schema"]["max_length"] == 200
    assert by_name["date_created"]["meta"]["special"] == ["date-created", "cast-timestamp"]
    assert (by_name["blocked"]["type"], by_name["blocked"]["meta"]["special"]) == ("boolean", None)
    boards = httpx.get(f"{server.url}/fields/boards", headers=server.headers).json()["data"]
    lists = next(f for f in boards if f["field"] == "lists")
    assert (lists["type"], lists["schema"], lists["meta"]["special"]) == ("alias", None, ["o2m"])
    choices = by_name["priority"]["meta"]["options"]["choices"]
    assert [c["value"] for c in choices] == list(schema.PRIORITIES)


def test_auth_is_required(server: StackServer) -> None:
    anonymous = httpx.get(server.collection("cards"))
    assert anonymous.status_code == 403
    assert anonymous.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    wrong = httpx.get(server.collection("cards"), headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401


def test_create_update_delete_round_trip() -> None:
    with start_directus() as server, httpx.Client(headers=server.headers, timeout=10) as client:
        url = server.collection("cards")
        created = client.post(url, json={"title": "Round trip", "list": 2, "priority": "high",
                                         "due": "2026-12-01", "estimate": 3})  # fmt: skip
        assert created.status_code == 200, created.text
        card = created.json()["data"]
        assert (card["title"], card["due"], card["done"]) == ("Round trip", "2026-12-01", False)
        assert card["date_created"].endswith("Z") and card["date_updated"] is None
        changed = client.patch(f"{url}/{card['id']}", json={"done": True})
        assert changed.status_code == 200 and changed.json()["data"]["done"] is True
        assert changed.json()["data"]["date_updated"] is not None
        assert client.delete(f"{url}/{card['id']}").status_code == 204
        gone = client.get(f"{url}/{card['id']}")
        assert gone.status_code == 403  # Directus does not tell a missing record apart
        invalid = client.post(url, json={"priority": "high"})
        assert invalid.status_code == 400, invalid.text
        error = invalid.json()["errors"][0]["extensions"]
        assert (error["code"], error["field"]) == ("FAILED_VALIDATION", "title")
        dangling = client.post(url, json={"title": "t", "list": 999})
        assert dangling.json()["errors"][0]["extensions"]["code"] == "INVALID_FOREIGN_KEY"
        # SQLite keeps no length: the metadata's max_length is not enforced on this database.
        long = client.post(url, json={"title": "x" * 201})
        assert long.status_code == 200 and len(long.json()["data"]["title"]) == 201


def test_stop_ends_the_whole_process_group() -> None:
    with start_directus() as server:
        members = group_members(server.process.pid)
        assert len(members) >= 2, members  # the launcher and node
        server.stop()
        assert server.process.returncode == 0
        assert group_members(server.process.pid) == []
        with pytest.raises(httpx.TransportError):
            httpx.get(server.collection("cards"), timeout=2)


def test_server_dies_with_its_launcher() -> None:
    with start_directus() as server:
        members = group_members(server.process.pid)
        os.kill(server.pid, signal.SIGKILL)
        server.process.wait(10)
        deadline = time.monotonic() + 10
        while group_members(server.process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_members(server.process.pid) == [], members


def test_a_missing_install_fails_with_the_setup_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("A2APP_SAMPLES_CACHE", str(tmp_path))
    with pytest.raises(StackStartError, match=r"Directus is not installed in .*samples/setup.sh"):
        start_stack("directus").__enter__()


def test_a_data_dir_is_reused_with_a_new_token(tmp_path: Any) -> None:
    with start_directus(data_dir=tmp_path) as first:
        made = httpx.post(first.collection("boards"), json={"name": "kept"}, headers=first.headers)
        assert made.status_code == 200, made.text
    with start_directus(data_dir=tmp_path) as second:
        assert second.token != first.token
        assert httpx.get(second.collection("boards"), headers=first.headers).status_code == 401
        names = [b["name"] for b in everything(second, "boards")]
        assert names == ["Main board", "kept"]
