"""What the gateway tests share: reading a tool result, and the elicitation answers."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

DESTRUCTIVE = "archive-board"


def text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def body(result: types.CallToolResult) -> Any:
    """The JSON answer (the last line: a write's receipt comes first)."""
    return json.loads(text(result).splitlines()[-1])


class User:
    """An elicitation callback that answers as a user would, and remembers being asked."""

    def __init__(self, confirm: bool) -> None:
        self.confirm = confirm
        self.asked: list[str] = []

    async def __call__(self, ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.asked.append(params.message)
        if not self.confirm:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"confirm": True})
