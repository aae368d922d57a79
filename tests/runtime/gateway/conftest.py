"""The Django kanban sample served through the MCP gateway, with an agent grant."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures.runtime import GrantSpec
from tests.fixtures.servers import KanbanServer, start_kanban

# Distinctive, so a leak is found by a plain substring search.
CLIENT_TOKEN = "a2app_mcpclient_CANARY_7f3e9b1c5d"
GRANTS = (GrantSpec("cred_mcp", "mcp-agent", ("*",), CLIENT_TOKEN),)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def kanban() -> Iterator[KanbanServer]:
    with start_kanban() as server:
        yield server
