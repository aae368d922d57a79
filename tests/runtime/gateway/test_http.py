"""The gateway over streamable HTTP at /mcp of `a2map serve`, with the SDK's own client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.fixtures.runtime import KANBAN_DRF, mapping_variant, start_runtime
from tests.fixtures.servers import KanbanServer

from .conftest import CLIENT_TOKEN, GRANTS
from .helpers import DESTRUCTIVE, User, body, text

pytestmark = pytest.mark.anyio


def _client(url: str, token: str, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(f"{url}/mcp", http_client=http), **kwargs)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_walk_write_and_confirm(kanban: KanbanServer, mode: str) -> None:
    with start_runtime(KANBAN_DRF, kanban, grants=GRANTS) as rt:
        user = User(confirm=True)
        async with _client(rt.url, CLIENT_TOKEN, mode=mode, elicitation_callback=user) as client:
            tools = await client.list_tools()
            assert [t.name for t in tools.tools] == ["describe", "records", "operation", "tasks"]
            root = body(await client.call_tool("describe", {}))
            assert root["level"] == "root" and "schemaVersion" in root
            entity = body(await client.call_tool("describe", {"path": "board/cards"}))
            assert entity["level"] == "entity"
            made = await client.call_tool(
                "records", {"entity": "boards", "action": "create", "data": {"name": "MCP"}}
            )
            assert not made.is_error, text(made)
            assert text(made).startswith("Created")
            board = str(body(made)["id"])
            done = await client.call_tool("operation", {"name": DESTRUCTIVE, "args": {"board": board}})
            assert not done.is_error, text(done)
            assert len(user.asked) == 1 and DESTRUCTIVE in user.asked[0]
            assert body(done)["ok"] is True


async def test_bearer_is_required_and_known(kanban: KanbanServer) -> None:
    with start_runtime(KANBAN_DRF, kanban, grants=GRANTS) as rt:
        init = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer a2app_not_a_grant"}):
            answer = httpx.post(f"{rt.url}/mcp", json=init, headers=headers)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"].startswith("Bearer")
            assert answer.json()["code"] == "agent_token_required"


async def test_owner_approvals_without_elicitation(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__approvals="owner")
    with start_runtime(mapping, kanban, grants=GRANTS) as rt:
        async with _client(rt.url, CLIENT_TOKEN) as client:
            made = body(
                await client.call_tool(
                    "records", {"entity": "boards", "action": "create", "data": {"name": "Own"}}
                )
            )
            asked = await client.call_tool(
                "operation", {"name": DESTRUCTIVE, "args": {"board": str(made["id"])}}
            )
            assert asked.is_error
            assert body(asked)["code"] == "approval_pending"
            assert isinstance(asked, types.CallToolResult)
