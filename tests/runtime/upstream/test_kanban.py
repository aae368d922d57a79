"""The upstream client against the real Django sample (``samples/kanban_drf``) on loopback."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from runtime.mapping import Mapping, load_mapping
from runtime.protocol import ProtocolError
from runtime.upstream import UpstreamClient
from tests.fixtures.servers import KanbanServer, start_kanban

pytestmark = pytest.mark.anyio

MAPPING_FILE = Path(__file__).resolve().parents[3] / "mappings" / "kanban-drf.yaml"
RICH_CARDS = 61  # the default card plus card_r001 … card_r060


def mapping_for(server: KanbanServer, token: str | None = None) -> Mapping:
    env = {"KANBAN_URL": server.url, "KANBAN_TOKEN": token or server.token}
    return load_mapping(MAPPING_FILE, env=env)


def client_for(server: KanbanServer, **upstream_changes: object) -> UpstreamClient:
    mapping = mapping_for(server)
    upstream = dataclasses.replace(mapping.upstream, **upstream_changes)  # type: ignore[arg-type]
    return UpstreamClient.for_mapping(dataclasses.replace(mapping, upstream=upstream))


def all_card_ids(server: KanbanServer) -> list[str]:
    response = httpx.get(f"{server.api}/cards/", params={"page_size": 1000}, headers=server.headers)
    return [card["id"] for card in response.json()["results"]]


@pytest.fixture(scope="module")
def rich() -> Iterator[KanbanServer]:
    with start_kanban(seed="rich") as server:
        yield server


@pytest.fixture
def fresh() -> Iterator[KanbanServer]:
    with start_kanban() as server:
        yield server


# ------------------------------------------------------------------ reads


@pytest.mark.parametrize("max_size", [None, 1000, 7])
async def test_scan_walks_every_page(rich: KanbanServer, max_size: int | None) -> None:
    mapping = mapping_for(rich)
    pagination = dataclasses.replace(mapping.upstream.pagination, max_size=max_size)
    async with client_for(rich, pagination=pagination) as api:
        scan = api.scan(mapping.entities["cards"], {}, limit=10_000)
        records = await scan.collect()
    assert [r["id"] for r in records] == all_card_ids(rich)
    assert len(records) == RICH_CARDS and scan.total == RICH_CARDS and not scan.truncated


async def test_scan_bound_is_reported(rich: KanbanServer) -> None:
    mapping = mapping_for(rich)
    async with client_for(rich) as api:
        scan = api.scan(mapping.entities["cards"], {}, limit=10)
        assert len(await scan.collect()) == 10
    assert scan.truncated


@pytest.mark.parametrize(("page", "per_page"), [(1, 30), (3, 7), (2, 40), (9, 7), (5, 30)])
async def test_list_page(rich: KanbanServer, page: int, per_page: int) -> None:
    mapping = mapping_for(rich)
    expected = all_card_ids(rich)[(page - 1) * per_page : page * per_page]
    async with client_for(rich) as api:
        result = await api.list_page(mapping.entities["cards"], {}, page=page, per_page=per_page)
    assert [r["id"] for r in result.records] == expected
    assert result.total == RICH_CARDS
    assert result.has_more is (page * per_page < RICH_CARDS)


async def test_get_record(rich: KanbanServer) -> None:
    mapping = mapping_for(rich)
    cards = mapping.entities["cards"]
    async with client_for(rich) as api:
        card = await api.get_record(cards, "card_seed")
        assert await api.get_record(cards, "card_nope") is None
    assert card is not None
    assert (card["id"], card["title"], card["list"]) == ("card_seed", "Welcome card", "list_todo")
    assert set(card) == {"id", *cards.fields}


async def test_django_filter_pushdown_narrows(rich: KanbanServer) -> None:
    mapping = mapping_for(rich)
    cards = mapping.entities["cards"]
    async with client_for(rich) as api:
        dialect = api.dialect
        done = dialect.encode_value(cards.fields["done"], True)
        assert done == "true"
        params = {cards.filters["done"]["="].param: done}
        result = await api.list_page(cards, params, page=1, per_page=100)
        assert cards.sort is not None
        order = dict([dialect.sort_param(cards.sort, [("created", True)], entity=cards)])
        newest = await api.list_page(cards, order, page=1, per_page=5)
        title = {cards.filters["title"]["~"].param: "LOGIN"}
        logins = await api.scan(cards, title, limit=100).collect()
    assert result.records and all(r["done"] is True for r in result.records)
    assert result.total is not None and 0 < result.total < RICH_CARDS
    created = [r["created"] for r in newest.records]
    assert created == sorted(created, reverse=True)
    assert logins and all("login" in r["title"].lower() for r in logins)
    assert len(logins) < RICH_CARDS


async def test_operation_call(rich: KanbanServer) -> None:
    async with client_for(rich) as api:
        answer = await api.call("GET", "/api/cards/finished-count/")
    assert isinstance(answer["count"], int) and answer["count"] > 0


# ------------------------------------------------------------------ writes


async def test_create_update_delete(fresh: KanbanServer) -> None:
    mapping = mapping_for(fresh)
    cards = mapping.entities["cards"]
    async with client_for(fresh) as api:
        created = await api.create_record(
            cards,
            {"title": "Ship it", "list": "list_todo", "priority": "high", "due": "2026-09-01"},
        )
        assert created["title"] == "Ship it" and created["list"] == "list_todo"
        assert created["id"].startswith("rec_") and created["created"]
        updated = await api.update_record(cards, created["id"], {"done": True, "tags": []})
        assert updated is not None and updated["done"] is True and updated["due"] == "2026-09-01"
        assert await api.get_record(cards, created["id"]) == updated
        assert await api.delete_record(cards, created["id"]) == {"id": created["id"]}
        assert await api.get_record(cards, created["id"]) is None
        assert await api.delete_record(cards, created["id"]) is None
        assert await api.update_record(cards, created["id"], {"done": False}) is None


async def test_validation_is_rejected_with_protocol_fields(fresh: KanbanServer) -> None:
    mapping = mapping_for(fresh)
    async with client_for(fresh) as api:
        with pytest.raises(ProtocolError) as info:
            await api.create_record(
                mapping.entities["cards"], {"title": "", "priority": "nope", "list": "zzz"}
            )
    error = info.value
    assert (error.code, error.status) == ("upstream_rejected", 400)
    fields = {v["field"]: v["expected"] for v in error.extra["violations"]}
    assert set(fields) == {"title", "priority", "list"}
    assert "blank" in fields["title"] and "valid choice" in fields["priority"]


async def test_wrong_token_is_an_auth_failure(fresh: KanbanServer) -> None:
    wrong = "0123456789abcdef0123456789abcdef01234567"
    mapping = mapping_for(fresh, token=wrong)
    async with UpstreamClient.for_mapping(mapping) as api:
        with pytest.raises(ProtocolError) as info:
            await api.get_record(mapping.entities["cards"], "card_seed")
    assert (info.value.code, info.value.status) == ("upstream_auth_failed", 502)
    assert wrong not in str(info.value.body())


# ------------------------------------------------------------------ faults


async def test_stopped_server_is_unavailable() -> None:
    with start_kanban() as server:
        mapping = mapping_for(server)
        server.stop()
        async with UpstreamClient.for_mapping(mapping) as api:
            with pytest.raises(ProtocolError) as info:
                await api.get_record(mapping.entities["cards"], "card_seed")
    assert (info.value.code, info.value.status) == ("upstream_unavailable", 502)
    assert server.token not in info.value.message


async def test_hang_is_a_timeout() -> None:
    with start_kanban(fault="hang") as server:
        mapping = mapping_for(server)
        async with client_for(server, timeout_seconds=1.0) as api:
            started = time.monotonic()
            with pytest.raises(ProtocolError) as info:
                await api.list_page(mapping.entities["cards"], {}, page=1, per_page=10)
            elapsed = time.monotonic() - started
    assert (info.value.code, info.value.status) == ("upstream_timeout", 504)
    assert elapsed < 5


@pytest.mark.parametrize(
    ("fault", "code", "extra"),
    [
        ("error", "upstream_error", {}),
        ("html", "upstream_error", {}),
        ("ratelimit", "upstream_rate_limited", {"retryAfterSeconds": 7}),
    ],
)
async def test_faults_translate(fault: str, code: str, extra: dict[str, object]) -> None:
    with start_kanban(fault=fault, fault_on="reads") as server:
        mapping = mapping_for(server)
        cards = mapping.entities["cards"]
        async with client_for(server) as api:
            for read in (
                api.get_record(cards, "card_seed"),
                api.list_page(cards, {}, page=1, per_page=10),
                api.scan(cards, {}, limit=100).collect(),
            ):
                with pytest.raises(ProtocolError) as info:
                    await read
                assert info.value.code == code
                assert all(info.value.extra[k] == v for k, v in extra.items())
                assert server.token not in str(info.value.body())
            # Writes are untouched by a fault on reads: the same client still works.
            created = await api.create_record(cards, {"title": "still writable"})
    assert created["title"] == "still writable"
