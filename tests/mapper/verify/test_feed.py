"""The change feed's claims, proven or not against real servers: PocketBase's `updated`
moves on every update (proven, and the served feed reads newest first by it); the Django
sample's only sortable datetime, `created`, never moves (learned, not proven: the feed
walks every record); json-server's listing ETag follows every change."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from mapper.verify import CHECKS
from runtime.mapping import load_stamp, stamp_path
from runtime.service import ServeOptions, build_state
from tests.fixtures.servers import KanbanServer
from tests.fixtures.stacks import StackServer, start_jsonserver, start_pocketbase
from tests.stacks.support import verify_copy

from .support import MAPPINGS_DIR as MAPPINGS
from .support import cli_env
from .support import with_feed as _fed


def _check(report: dict[str, Any], claim: str) -> dict[str, Any] | None:
    return next((c for c in report["checks"] if c["claim"] == claim), None)


def _learned(report: dict[str, Any], claim: str) -> str | None:
    return next((x["text"] for x in report["learned"] if x["claim"] == claim), None)


def _served_feed(copy: Path, tmp: Path, *, unverified: bool) -> Mapping[str, str]:
    options = ServeOptions(copy, store_url=f"sqlite:///{tmp / 'state.db'}", state_dir=tmp,
                           allow_unverified=unverified)  # fmt: skip
    state, _ = build_state(options)
    try:
        assert state.mapping.serve.feed is not None
        return state.mapping.serve.feed.modified
    finally:
        state.store.close()


@pytest.fixture(scope="module")
def pocketbase() -> Iterator[StackServer]:
    with start_pocketbase(seed="rich") as upstream:
        yield upstream


def _pb_env(server: StackServer) -> dict[str, str]:
    return {"POCKETBASE_KANBAN_URL": server.url, "POCKETBASE_KANBAN_TOKEN": str(server.token)}


def test_pocketbase_updated_is_proven_and_only_a_fresh_stamp_lets_the_feed_use_it(
    pocketbase: StackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _fed(MAPPINGS / "pocketbase-kanban.probed.yaml", tmp_path / "src", ["cards"])
    env = _pb_env(pocketbase)
    copy, done, report = verify_copy(source, tmp_path / "run", env, "--scope", "cards")
    assert done.returncode == 0, done.stdout + done.stderr
    check = _check(report, "entities.cards.feed.modified")
    assert check is not None and check["outcome"] == "passed", check
    assert check["note"].startswith("updated moved from ") and "lists it ahead of" in check["note"]
    assert report["proven"]["feedModified"] == {"cards": "updated"}
    stamp = load_stamp(stamp_path(copy))
    assert stamp is not None and stamp.proven_feed == {"cards": "updated"}
    assert report["cleanup"]["leftovers"] == []
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _served_feed(copy, tmp_path, unverified=False) == {"cards": "updated"}
    stamp_path(copy).unlink()
    # Served unverified, nothing is proven: every poll is a complete walk.
    assert _served_feed(copy, tmp_path, unverified=True) == {}


def test_without_writes_the_modified_field_is_not_proven(
    pocketbase: StackServer, tmp_path: Path
) -> None:
    source = _fed(MAPPINGS / "pocketbase-kanban.probed.yaml", tmp_path / "src", ["cards"])
    copy, _, report = verify_copy(
        source, tmp_path / "run", _pb_env(pocketbase), "--scope", "cards", "--read-only"
    )
    check = _check(report, "entities.cards.feed.modified")
    assert check is not None and check["outcome"] == "unproven" and check["notRun"], check
    assert check["note"] == "not run: --read-only"
    stamp = load_stamp(stamp_path(copy))
    assert stamp is not None and stamp.proven_feed == {}


def test_django_created_never_moves_so_no_field_is_proven(
    kanban: KanbanServer, tmp_path: Path
) -> None:
    source = _fed(MAPPINGS / "kanban-drf.yaml", tmp_path / "src", ["cards"])
    env = {k: v for k, v in cli_env(kanban).items() if k.startswith("KANBAN_")}
    copy, done, report = verify_copy(source, tmp_path / "run", env, "--scope", "cards")
    assert done.returncode == 0, done.stdout + done.stderr  # no claim of the mapping's fails
    assert _check(report, "entities.cards.feed.modified") is None
    learned = _learned(report, "entities.cards.feed.modified")
    assert learned is not None and "no field moves forward" in learned and "created read" in learned
    assert report["proven"]["feedModified"] == {}
    stamp = load_stamp(stamp_path(copy))
    assert stamp is not None and stamp.proven_feed == {}
    # The Django sample sends no ETag: nothing to prove, nothing reported.
    assert _check(report, "entities.cards.feed.etag") is None


def test_jsonserver_listing_etag_follows_the_runs_update(tmp_path: Path) -> None:
    with start_jsonserver() as server:
        source = _fed(MAPPINGS / "jsonserver-kanban.probed.yaml", tmp_path / "src", ["cards"])
        env = {"JSONSERVER_KANBAN_URL": server.url}
        _, done, report = verify_copy(source, tmp_path / "run", env, "--scope", "cards")
        assert done.returncode == 0, done.stdout + done.stderr
        check = _check(report, "entities.cards.feed.etag")
        assert check is not None and check["outcome"] == "passed", check
        assert "304 while unchanged; 200 with ETag" in check["note"]
        # and the upstream itself says so: 304 for the tag it sent
        answer = httpx.get(server.collection("cards"))
        again = httpx.get(
            server.collection("cards"), headers={"If-None-Match": answer.headers["ETag"]}
        )
        assert again.status_code == 304
        # no sortable datetime: no modified field to prove
        assert _check(report, "entities.cards.feed.modified") is None


def test_the_check_keeps_no_records(pocketbase: StackServer) -> None:
    """What the feed checks created was cleaned up with the rest of the runs' records."""

    async def marked() -> list[str]:
        async with httpx.AsyncClient(headers={"Authorization": str(pocketbase.token)}) as client:
            answer = await client.get(
                pocketbase.collection("cards"), params={"perPage": 500, "filter": "title~'a2v'"}
            )
            return [r["id"] for r in answer.json()["items"]]

    assert asyncio.run(marked()) == []


def test_the_feed_checks_run_after_the_sorts_they_build_on() -> None:
    """The modified field must be one this run proved the upstream sorts by: within an
    entity's query phase, checks run in the order they register."""
    names = [spec.name for spec in CHECKS]
    assert names.index("sort_orders") < names.index("feed_modified_moves")
