"""The kanban sample API, over real HTTP against started servers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.servers import KanbanServer, free_port, start_kanban

pytest_plugins = ["tests.fixtures.plugin"]

REPO_ROOT = Path(__file__).resolve().parents[2]
ID_PATTERN = re.compile(r"^rec_[0-9a-f]{16}$")


def get(server: KanbanServer, path: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{server.url}{path}", params=params, headers=server.headers, timeout=10)


def post(server: KanbanServer, path: str, json: Any = None, **kw: Any) -> httpx.Response:
    return httpx.post(f"{server.url}{path}", json=json, headers=server.headers, timeout=10, **kw)


def all_results(server: KanbanServer, path: str, **params: Any) -> list[dict[str, Any]]:
    response = get(server, path, page_size=1000, **params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["next"] is None
    return list(body["results"])


def pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# --------------------------------------------------------------------------- seed and auth


def test_default_seed_is_exact(kanban: KanbanServer) -> None:
    assert all_results(kanban, "/api/boards/") == [
        {
            "id": "board_main",
            "name": "Main board",
            "archived": False,
            "created": "2026-07-30T00:00:00Z",
        }
    ]
    assert all_results(kanban, "/api/lists/") == [
        {"id": "list_doing", "title": "Doing", "position": 2.0, "board": "board_main"},
        {"id": "list_todo", "title": "To Do", "position": 1.0, "board": "board_main"},
    ]
    assert all_results(kanban, "/api/cards/") == [
        {
            "id": "card_seed",
            "title": "Welcome card",
            "list": "list_todo",
            "priority": "low",
            "due": None,
            "done": False,
            "created": "2026-07-30T00:00:00Z",
            "tags": [],
        }
    ]
    assert all_results(kanban, "/api/tags/") == []
    root = get(kanban, "/api/").json()
    assert set(root) == {"boards", "lists", "cards", "tags"}
    assert root["cards"] == f"{kanban.url}/api/cards/"


def test_the_due_today_seed_is_the_default_with_the_card_due_today(kanban: KanbanServer) -> None:
    with start_kanban(seed="due-today") as dated:
        today = datetime.now(UTC).date().isoformat()
        (card,) = all_results(dated, "/api/cards/")
        assert card["id"] == "card_seed" and card["due"] == today
        assert {**card, "due": None} == all_results(kanban, "/api/cards/")[0]
        for path in ("/api/boards/", "/api/lists/", "/api/tags/"):
            assert all_results(dated, path) == all_results(kanban, path)
    # the default's cached template was not touched by it
    assert all_results(kanban, "/api/cards/")[0]["due"] is None
    with start_kanban() as fresh:
        assert all_results(fresh, "/api/cards/")[0]["due"] is None


def test_an_unknown_seed_in_the_environment_is_a_usage_error() -> None:
    env = {**os.environ, "KANBAN_DRF_SEED": "bogus", "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "samples.kanban_drf", "serve", "--port", "0"],
        env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "KANBAN_DRF_SEED=bogus" in done.stderr


def test_token_is_required(kanban: KanbanServer) -> None:
    for path in ("/api/", "/api/cards/", "/api/cards/card_seed/", "/api/cards/finished-count/"):
        response = httpx.get(f"{kanban.url}{path}", timeout=10)
        assert response.status_code == 401, path
        assert response.json() == {"detail": "Authentication credentials were not provided."}
    bad = httpx.get(f"{kanban.url}/api/cards/", headers={"Authorization": "Token nope"}, timeout=10)
    assert bad.status_code == 401
    assert httpx.post(f"{kanban.url}/api/cards/", json={"title": "x"}).status_code == 401
    assert re.fullmatch(r"[0-9a-f]{40}", kanban.token)
    basic = httpx.get(f"{kanban.url}/api/cards/", auth=("admin", kanban.token), timeout=10)
    assert basic.status_code == 200
    schema = httpx.get(f"{kanban.url}/api/schema/", params={"format": "json"}, timeout=10)
    assert schema.status_code == 200
    spec = schema.json()
    assert spec["openapi"].startswith("3.")
    assert "/api/cards/{id}/finish/" in spec["paths"]
    assert "/api/cards/finished-count/" in spec["paths"]
    assert "/api/boards/{id}/report/" in spec["paths"]
    assert httpx.get(f"{kanban.url}/elsewhere/", headers=kanban.headers).status_code == 404


def test_create_update_delete_with_string_ids(kanban: KanbanServer) -> None:
    created = post(
        kanban,
        "/api/cards/",
        {"id": "mine", "title": "New", "priority": "high", "due": "2026-09-01"},
    )
    assert created.status_code == 201, created.text
    card = created.json()
    assert ID_PATTERN.match(card["id"]), card["id"]  # the id is read-only
    assert card["list"] is None
    assert card["tags"] == []
    assert card["done"] is False
    assert card["due"] == "2026-09-01"
    url = f"{kanban.url}/api/cards/{card['id']}/"
    patched = httpx.patch(url, json={"list": "list_doing"}, headers=kanban.headers)
    assert patched.status_code == 200
    assert patched.json()["list"] == "list_doing"
    bad = post(kanban, "/api/cards/", {"title": "", "priority": "bogus"})
    assert bad.status_code == 400
    assert set(bad.json()) == {"title", "priority"}
    assert httpx.delete(url, headers=kanban.headers).status_code == 204
    assert httpx.get(url, headers=kanban.headers).status_code == 404


def test_pagination_with_page_size(kanban_rich: KanbanServer) -> None:
    first = get(kanban_rich, "/api/cards/", page_size=7).json()
    assert first["count"] == 61
    assert len(first["results"]) == 7
    assert first["previous"] is None
    assert "page=2" in first["next"] and "page_size=7" in first["next"]
    last = get(kanban_rich, "/api/cards/", page_size=7, page=9).json()
    assert len(last["results"]) == 61 - 8 * 7
    assert last["next"] is None
    ids = [card["id"] for card in all_results(kanban_rich, "/api/cards/")]
    assert ids == sorted(ids)
    assert [card["id"] for card in last["results"]] == ids[56:]
    assert len(get(kanban_rich, "/api/cards/").json()["results"]) == 20  # default page size
    assert get(kanban_rich, "/api/cards/", page=99).status_code == 404


def test_filters_search_and_ordering(kanban_rich: KanbanServer) -> None:
    cards = all_results(kanban_rich, "/api/cards/")

    def ids(**params: Any) -> list[str]:
        return [card["id"] for card in all_results(kanban_rich, "/api/cards/", **params)]

    def expect(predicate: Any) -> list[str]:
        return [card["id"] for card in cards if predicate(card)]

    assert ids(title__icontains="login") == expect(lambda c: "login" in c["title"].lower())
    assert len(ids(title__icontains="login")) >= 3
    assert ids(priority__in="high,urgent") == expect(lambda c: c["priority"] in {"high", "urgent"})
    assert ids(due__isnull="true") == expect(lambda c: c["due"] is None)
    assert ids(due__gte="2026-10-01") == expect(lambda c: c["due"] and c["due"] >= "2026-10-01")
    assert ids(done="true") == expect(lambda c: c["done"])
    assert ids(list="list_doing") == expect(lambda c: c["list"] == "list_doing")
    assert ids(tags="tag_docs") == expect(lambda c: "tag_docs" in c["tags"])
    assert ids(search="café") == expect(lambda c: "café" in c["title"].lower())
    assert get(kanban_rich, "/api/cards/", priority="bogus").status_code == 400

    by_due = all_results(kanban_rich, "/api/cards/", ordering="-due", due__isnull="false")
    dues = [card["due"] for card in by_due]
    assert dues == sorted(dues, reverse=True)
    by_name = [tag["name"] for tag in all_results(kanban_rich, "/api/tags/", ordering="-name")]
    assert by_name == ["ops", "feature", "docs", "design", "bug"]
    lists = all_results(kanban_rich, "/api/lists/", position__gt=1)
    assert [item["id"] for item in lists] == ["list_doing"]
    boards = all_results(kanban_rich, "/api/boards/", archived="true")
    assert [board["id"] for board in boards] == ["board_archive"]


def test_rich_seed_content(kanban_rich: KanbanServer) -> None:
    cards = all_results(kanban_rich, "/api/cards/")
    rich = [card for card in cards if card["id"].startswith("card_r")]
    assert len(rich) == 60
    assert {card["priority"] for card in rich} == {"none", "low", "medium", "high", "urgent"}
    assert {card["list"] for card in rich} == {"list_todo", "list_doing"}
    with_due = [card for card in rich if card["due"] is not None]
    assert 20 <= len(with_due) <= 40
    months = {card["due"][:7] for card in with_due}
    assert len(months) >= 4
    assert 0 < sum(card["done"] for card in rich) < 60
    titles = [card["title"] for card in rich]
    assert any('"' in title for title in titles)
    assert "Café menu redesign" in titles
    assert len({card["created"] for card in rich}) == 60
    tags = all_results(kanban_rich, "/api/tags/")
    assert len(tags) == 5
    assert {tag for card in rich for tag in card["tags"]} == {tag["id"] for tag in tags}
    assert any(not card["tags"] for card in rich)


def test_rich_seed_is_deterministic(kanban_rich: KanbanServer) -> None:
    with start_kanban(seed="rich") as other:
        assert other.token != kanban_rich.token
        for path in ("/api/boards/", "/api/lists/", "/api/cards/", "/api/tags/"):
            assert all_results(other, path) == all_results(kanban_rich, path), path


# --------------------------------------------------------------------------- operations


def test_operation_routes(kanban: KanbanServer) -> None:
    count = get(kanban, "/api/cards/finished-count/")
    assert count.status_code == 200
    assert count.json() == {"count": 0}

    finished = post(kanban, "/api/cards/card_seed/finish/")
    assert finished.status_code == 200
    assert finished.json()["done"] is True
    assert finished.json()["id"] == "card_seed"
    assert get(kanban, "/api/cards/finished-count/").json() == {"count": 1}
    assert (
        httpx.post(f"{kanban.url}/api/cards/finished-count/", headers=kanban.headers).status_code
        == 405
    )

    archived = post(kanban, "/api/boards/board_main/archive/")
    assert archived.status_code == 200
    assert archived.json() == {
        "id": "board_main",
        "name": "Main board",
        "archived": True,
        "created": "2026-07-30T00:00:00Z",
    }
    assert get(kanban, "/api/cards/card_seed/").json()["list"] == "list_todo"
    assert post(kanban, "/api/boards/nope/archive/").status_code == 404

    started = time.monotonic()
    report = post(kanban, "/api/boards/board_main/report/", params={"seconds": "0.3"})
    elapsed = time.monotonic() - started
    assert report.status_code == 200
    assert report.json() == {"board": "board_main", "cards": 1, "done": 1}
    assert 0.3 <= elapsed < 5
    assert (
        post(kanban, "/api/boards/board_main/report/", params={"seconds": "x"}).status_code == 400
    )


# --------------------------------------------------------------------------- data dir reuse


def test_data_dir_reuse_keeps_data_and_token(tmp_path: Path) -> None:
    with start_kanban(data_dir=tmp_path) as first:
        created = post(first, "/api/tags/", {"name": "kept"})
        assert created.status_code == 201
        token = first.token
    with start_kanban(data_dir=tmp_path, seed="rich") as second:
        assert second.token == token
        assert [tag["name"] for tag in all_results(second, "/api/tags/")] == ["kept"]
        assert len(all_results(second, "/api/cards/")) == 1  # no re-seed


# --------------------------------------------------------------------------- faults


def test_fault_hang(kanban_factory: Any) -> None:
    server = kanban_factory(fault="hang")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(f"{server.url}/api/cards/", headers=server.headers, timeout=1)


@pytest.mark.parametrize(
    ("fault", "status", "content_type"),
    [
        ("error", 500, "text/html"),
        ("html", 200, "text/html"),
        ("ratelimit", 429, "application/json"),
    ],
)
def test_fault_answers(kanban_factory: Any, fault: str, status: int, content_type: str) -> None:
    server = kanban_factory(fault=fault)
    for response in (
        get(server, "/api/cards/"),
        post(server, "/api/cards/", {"title": "x"}),
        httpx.get(f"{server.url}/api/schema/", timeout=10),
    ):
        assert response.status_code == status
        assert response.headers["content-type"].startswith(content_type)
    if fault == "ratelimit":
        assert response.headers["retry-after"] == "7"
        assert "detail" in response.json()
    if fault == "html":
        assert "<html" in response.text.lower()
    if fault == "error":
        assert "Server Error" in response.text


def test_fault_on_writes_leaves_reads_alone(kanban_factory: Any) -> None:
    server = kanban_factory(fault="error", fault_on="writes")
    assert get(server, "/api/cards/").status_code == 200
    assert post(server, "/api/cards/", {"title": "x"}).status_code == 500
    assert get(server, "/api/cards/").json()["count"] == 1


def test_fault_on_reads_leaves_writes_alone(kanban_factory: Any) -> None:
    server = kanban_factory(fault="ratelimit", fault_on="reads")
    assert get(server, "/api/cards/").status_code == 429
    assert post(server, "/api/cards/", {"title": "x"}).status_code == 201


def test_fault_drop_field(kanban_factory: Any) -> None:
    server = kanban_factory(fault="drop-field")
    created = post(server, "/api/cards/", {"title": "With due", "due": "2026-09-01"})
    assert created.status_code == 201
    assert created.json()["due"] is None
    stored = get(server, f"/api/cards/{created.json()['id']}/").json()
    assert stored["due"] is None
    assert stored["title"] == "With due"
    patched = httpx.patch(
        f"{server.url}/api/cards/card_seed/",
        json={"due": "2026-10-10", "priority": "high"},
        headers=server.headers,
    )
    assert patched.status_code == 200
    assert patched.json()["due"] is None
    assert patched.json()["priority"] == "high"
    tag = post(server, "/api/tags/", {"name": "unaffected"})
    assert tag.status_code == 201


def test_fault_die_mid_write(tmp_path: Path) -> None:
    with start_kanban(fault="die-mid-write", data_dir=tmp_path) as server:
        assert get(server, "/api/cards/").status_code == 200  # reads are untouched
        with pytest.raises(httpx.TransportError):
            post(server, "/api/cards/", {"title": "Written before the crash"})
        assert server.wait_exit(10) != 0
        assert pid_gone(server.pid)
    with start_kanban(data_dir=tmp_path) as again:
        titles = [card["title"] for card in all_results(again, "/api/cards/")]
        assert titles.count("Written before the crash") == 1


# --------------------------------------------------------------------------- process handling


def test_fixture_kills_process_group() -> None:
    with start_kanban() as server:
        pid = server.pid
        assert server.process.pid == pid
        assert os.getpgid(pid) == pid
        assert get(server, "/api/").status_code == 200
    assert pid_gone(pid)
    assert server.process.returncode is not None


def test_stop_mid_test(kanban: KanbanServer) -> None:
    assert get(kanban, "/api/").status_code == 200
    # SIGTERM: a clean exit; the patience is generous because a loaded CI machine
    # can take seconds to schedule the shutdown, which is not what is tested here.
    assert kanban.stop(grace=20) == 0
    assert pid_gone(kanban.pid)
    with pytest.raises(httpx.ConnectError):
        get(kanban, "/api/")
    kanban.stop()  # idempotent


def test_explicit_port() -> None:
    port = free_port()
    with start_kanban(port=port) as server:
        assert server.url == f"http://127.0.0.1:{port}"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "samples.kanban_drf", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_cli_help_and_bad_flags() -> None:
    helped = run_cli("--help")
    assert helped.returncode == 0
    assert "serve" in helped.stdout
    serve_help = run_cli("serve", "--help")
    assert serve_help.returncode == 0
    assert "--fault-on" in serve_help.stdout
    for bad in (
        [],
        ["serve"],
        ["serve", "--port", "x"],
        ["serve", "--port", "0", "--fault", "boom"],
        ["serve", "--port", "0", "--seed", "huge"],
        ["serve", "--port", "0", "--fault-on", "some"],
        ["serve", "--port", "0", "--bogus"],
    ):
        result = run_cli(*bad)
        assert result.returncode == 2, bad
        assert result.stdout == ""
        assert "error:" in result.stderr
