"""The gateway's scenarios, written once and run over stdio (tests/mapper/test_mcp.py) and
over streamable HTTP (test_http.py), with the SDK's own client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp import Client

from runtime.store import Store

DESTRUCTIVE = "archive-board"
APP = "kanban-drf"
# The mapping's serve.triggers for the scenarios: every open card asks for a summary.
TRIGGERS = [
    {"type": "card.open", "entity": "cards", "filter": "done = false", "capability": "summarize",
     "payload": ["title"]},
]  # fmt: skip
# connect(**Client keyword arguments) -> a Client of the gateway under test
Connect = Callable[..., Client]


def text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def body(result: types.CallToolResult) -> Any:
    """The JSON answer (the last line: a write's receipt comes first)."""
    return json.loads(text(result).splitlines()[-1])


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


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


class Session:
    """A client that keeps every tool result's text, for the canary."""

    def __init__(self, client: Client, seen: list[str]) -> None:
        self.client = client
        self.seen = seen

    async def call(self, tool: str, args: dict[str, Any]) -> types.CallToolResult:
        result = await self.client.call_tool(tool, args)
        self.seen.append(text(result))
        return result

    async def new_board(self, name: str) -> str:
        made = await self.call("records", {"entity": "boards", "action": "create",
                                           "data": {"name": name}})  # fmt: skip
        assert not made.is_error, text(made)
        return str(body(made)["id"])

    async def archived(self, board: str) -> bool:
        read = await self.call("records", {"entity": "boards", "action": "get", "id": board})
        return bool(body(read)["archived"])

    async def archive(self, board: str) -> types.CallToolResult:
        return await self.call("operation", {"name": DESTRUCTIVE, "args": {"board": board}})


async def walk(connect: Connect, seen: list[str]) -> dict[str, int]:
    """describe root -> module -> entity, refused and correct writes, a task read; returns
    the character counts of tools/list and of each describe level."""
    sizes: dict[str, int] = {}
    async with connect() as client:
        assert client.protocol_version == "2026-07-28"
        s = Session(client, seen)
        listed = await client.session.list_tools()
        assert [t.name for t in listed.tools] == ["describe", "records", "operation", "tasks"]
        assert listed.cache_scope == "public" and (listed.ttl_ms or 0) > 0
        wire = listed.model_dump(by_alias=True, mode="json", exclude_none=True)
        # what the model reads is the tools array; the SDK adds its own _meta around it
        sizes["tools/list result"] = size(wire)
        sizes["tools/list tools"] = size(wire["tools"])
        root = body(await s.call("describe", {}))
        sizes["describe root"] = len(seen[-1])
        assert root["level"] == "root" and root["schemaVersion"].startswith("sv_")
        module = body(await s.call("describe", {"path": "board"}))
        sizes["describe board"] = len(seen[-1])
        assert module["level"] == "module"
        entity = body(await s.call("describe", {"path": "board/cards", "app": APP}))
        sizes["describe board/cards"] = len(seen[-1])
        assert entity["level"] == "entity" and "title" in entity["fields"]
        cards = body(await s.call("records", {"entity": "cards", "action": "list"}))
        card = cards["items"][0]["id"]
        record = body(await s.call("describe", {"path": f"board/cards/{card}"}))
        sizes["describe board/cards/{id}"] = len(seen[-1])
        assert record["level"] == "record" and record["id"] == str(card)
        found = body(await s.call("describe", {"find": "card"}))
        sizes["describe ?find=card"] = len(seen[-1])
        assert found["level"] == "find" and found["matches"]
        # a refused write names every violation at once
        bad = await s.call("records", {"entity": "cards", "action": "create",
                                       "data": {"priority": "soon", "nope": 1}})  # fmt: skip
        assert bad.is_error
        codes = {v["code"] for v in body(bad)["violations"]}
        assert {"invalid_enum", "unknown_field", "missing_required"} <= codes
        # so does a call of the tool itself that its schema does not allow
        wrong = await s.call("records", {"action": "fetch", "extra": True})
        assert wrong.is_error and body(wrong)["code"] == "usage"
        assert len(body(wrong)["violations"]) == 3
        # a correct write: the receipt is the first line, the stored record the second
        made = await s.call("records", {"entity": "boards", "action": "create",
                                        "data": {"name": "Launch"}})  # fmt: skip
        assert not made.is_error, text(made)
        assert text(made).splitlines()[0].startswith("Created board")
        # a retried write with the same idempotency key is not made twice
        again = {"entity": "boards", "action": "create", "data": {"name": "Once"}, "key": "k-1"}
        assert not (await s.call("records", again)).is_error
        assert body(await s.call("records", again))["code"] == "duplicate_request"
        # a filtered read through query
        found = await s.call("records", {"entity": "boards", "action": "list",
                                         "query": {"filter": 'name = "Launch"'}})  # fmt: skip
        assert [b["name"] for b in body(found)["items"]] == ["Launch"]
        # tasks: the trigger's tasks, one read by id, and the events
        listing = body(await s.call("tasks", {"action": "list"}))
        assert listing["tasks"], listing
        task = listing["tasks"][0]
        one = body(await s.call("tasks", {"action": "get", "id": task["id"]}))
        assert one["id"] == task["id"] and one["request"]["capability"] == "summarize"
        events = body(await s.call("tasks", {"action": "events", "since": "0"}))
        assert events["events"]
    return sizes


async def confirmations(connect: Connect, seen: list[str]) -> None:
    """A destructive operation: accepted (input_required on 2026-07-28), declined (a
    mid-call elicitation on the handshake era), and from a client that cannot ask."""
    yes = User(confirm=True)
    async with connect(elicitation_callback=yes) as client:
        s = Session(client, seen)
        board = await s.new_board("Yes")
        done = await s.archive(board)
        assert not done.is_error, text(done)
        assert len(yes.asked) == 1 and DESTRUCTIVE in yes.asked[0]
        assert body(done)["ok"] is True and await s.archived(board)
    no = User(confirm=False)
    async with connect(mode="legacy", elicitation_callback=no) as client:
        s = Session(client, seen)
        board = await s.new_board("No")
        refused = await s.archive(board)
        assert refused.is_error and body(refused)["code"] == "approval_denied"
        assert len(no.asked) == 1 and not await s.archived(board)
    async with connect() as client:
        s = Session(client, seen)
        board = await s.new_board("Plain")
        refused = await s.archive(board)
        assert refused.is_error and body(refused)["code"] == "confirmation_unavailable"
        assert not await s.archived(board)


async def owner_approves(connect: Connect, store_url: str, seen: list[str]) -> None:
    """`serve.approvals: owner`: a client without elicitation reads approval_pending until
    the owner approves out of band; then the same call runs."""
    async with connect() as client:
        s = Session(client, seen)
        board = await s.new_board("Owned")
        pending = await s.archive(board)
        assert pending.is_error and body(pending)["code"] == "approval_pending"
        assert "same call again" in body(pending)["message"]
        assert not await s.archived(board)
        store = Store.open(store_url)
        try:
            assert store.decide_approval(APP, body(pending)["approvalKey"], "approved")
        finally:
            store.close()
        done = await s.archive(board)
        assert not done.is_error, text(done)
        assert await s.archived(board)
