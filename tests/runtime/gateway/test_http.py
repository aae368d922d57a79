"""The gateway over streamable HTTP at /mcp of `a2map serve`, against the Django sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.fixtures.runtime import KANBAN_DRF, mapping_variant, start_runtime
from tests.fixtures.servers import KanbanServer

from .conftest import CLIENT_TOKEN, GRANTS
from .helpers import TRIGGERS, Connect, confirmations, owner_approves, walk

pytestmark = pytest.mark.anyio


def _connect(url: str) -> Connect:
    def connect(**kwargs: Any) -> Client:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {CLIENT_TOKEN}"})
        return Client(streamable_http_client(f"{url}/mcp", http_client=http), **kwargs)

    return connect


async def test_scenarios(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__triggers=TRIGGERS)
    seen: list[str] = []
    with start_runtime(mapping, kanban, grants=GRANTS) as rt:
        await walk(_connect(rt.url), seen)
        await confirmations(_connect(rt.url), seen)
        log = rt.stderr()
    # the upstream's secret reaches no tool result and no log line
    assert not any(kanban.token in t for t in seen)
    assert kanban.token not in log and CLIENT_TOKEN not in log


async def test_owner_approvals(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__approvals="owner")
    with start_runtime(mapping, kanban, grants=GRANTS) as rt:
        await owner_approves(_connect(rt.url), rt.store_url, [])


async def test_bearer_is_required_and_known(kanban: KanbanServer) -> None:
    with start_runtime(KANBAN_DRF, kanban, grants=GRANTS) as rt:
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer a2app_not_a_grant"}):
            answer = httpx.post(f"{rt.url}/mcp", json=listing, headers=headers)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"].startswith("Bearer")
            assert answer.json()["code"] == "agent_token_required"
        # a foreign browser origin is refused even with a good token
        headers = {"Authorization": f"Bearer {CLIENT_TOKEN}", "Origin": "http://evil.example"}
        answer = httpx.post(f"{rt.url}/mcp", json=listing, headers=headers)
        assert answer.status_code == 403 and answer.json()["code"] == "forbidden_origin"
