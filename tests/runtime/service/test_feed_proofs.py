"""The change feed uses what its stamp proved, against real servers: PocketBase read newest
first by the `updated` the verifier proved; json-server's complete walks skipped while its
listing answers 304 to the proven ETag, and walked again once a record changed or went."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from runtime.service import ChangeFeed, RuntimeState, ServeOptions, build_state
from tests.fixtures.stacks import StackServer, start_jsonserver, start_pocketbase
from tests.mapper.verify.support import MAPPINGS_DIR as MAPPINGS
from tests.mapper.verify.support import with_feed as _fed
from tests.stacks.support import verified_copy

UNCHANGED = "unchanged: the listing answered 304 to the ETag of the last complete walk"


class Seen(httpx.AsyncBaseTransport):
    """The real transport, noting each request's query and If-None-Match."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.asked: list[tuple[str, str | None]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.asked.append((request.url.query.decode(), request.headers.get("If-None-Match")))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextmanager
def _served(
    copy: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> Iterator[RuntimeState]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    options = ServeOptions(copy, store_url=f"sqlite:///{tmp / 'state.db'}", state_dir=tmp)
    state, _ = build_state(options)
    try:
        yield state
    finally:
        state.store.close()


def _feed(state: RuntimeState, seen: Seen) -> ChangeFeed:
    assert state.mapping.serve.feed is not None
    return ChangeFeed(state, state.mapping.serve.feed, transport=seen)


def test_jsonserver_walks_are_skipped_while_the_listing_answers_304(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with start_jsonserver() as server:
        env = {"JSONSERVER_KANBAN_URL": server.url}
        source = _fed(MAPPINGS / "jsonserver-kanban.probed.yaml", tmp_path / "src", ["cards"])
        copy, report = verified_copy(source, tmp_path / "run", env)
        assert report["proven"]["feedEtag"] == ["cards"]
        with _served(copy, tmp_path, monkeypatch, env) as state:
            assert state.mapping.serve.feed is not None
            assert state.mapping.serve.feed.etags == ("cards",)
            asyncio.run(_polls(state, server))


async def _polls(state: RuntimeState, server: StackServer) -> None:
    seen = Seen()
    feed = _feed(state, seen)
    app = state.mapping.app.id
    cards = server.collection("cards")
    try:
        assert await feed.poll() == []  # the baseline, after asking the listing's tag
        tag = seen.asked[0]
        assert tag == ("", None) and len(seen.asked) > 1
        asked = len(seen.asked)
        assert await feed.poll() == []  # one conditional ask, answered 304: no walk
        assert len(seen.asked) == asked + 1 and seen.asked[-1][1] is not None
        state_now = state.store.feed_state(app, "cards")
        assert state_now is not None and state_now.note == UNCHANGED
        async with httpx.AsyncClient() as client:
            first = (await client.get(cards)).json()[0]
            await client.patch(f"{cards}/{first['id']}", json={"title": "Renamed upstream"})
            changes = await feed.poll()
            assert [(c.action, c.record_id) for c in changes] == [("update", str(first["id"]))]
            asked = len(seen.asked)
            assert await feed.poll() == []  # unchanged again since that walk
            assert len(seen.asked) == asked + 1
            last = (await client.get(cards)).json()[-1]
            await client.delete(f"{cards}/{last['id']}")
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [("delete", str(last["id"]))]
    finally:
        await feed.aclose()


def test_pocketbase_is_read_newest_first_by_the_proven_updated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with start_pocketbase(seed="rich") as server:
        env = {"POCKETBASE_KANBAN_URL": server.url, "POCKETBASE_KANBAN_TOKEN": str(server.token)}
        source = _fed(MAPPINGS / "pocketbase-kanban.probed.yaml", tmp_path / "src", ["cards"])
        copy, _ = verified_copy(source, tmp_path / "run", env)
        with _served(copy, tmp_path, monkeypatch, env) as state:
            asyncio.run(_newest_first(state, server))


async def _newest_first(state: RuntimeState, server: StackServer) -> None:
    seen = Seen()
    feed = _feed(state, seen)
    cards = server.collection("cards")
    headers = {"Authorization": str(server.token)}
    try:
        assert await feed.poll() == []  # the baseline: every record, in no order
        assert all("sort=" not in query for query, _ in seen.asked)
        async with httpx.AsyncClient(headers=headers) as client:
            first = (await client.get(cards)).json()["items"][0]
            await client.patch(f"{cards}/{first['id']}", json={"title": "Renamed upstream"})
        changes = await feed.poll()
        assert [(c.action, c.record_id) for c in changes] == [("update", first["id"])]
        assert "sort=-updated" in seen.asked[-1][0]
    finally:
        await feed.aclose()
