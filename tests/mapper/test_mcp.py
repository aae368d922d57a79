"""`a2map mcp` on stdio against the Django kanban sample, driven by the SDK's own client.

The runtime's upstream traffic passes a recording proxy, so the canary can show that the
MCP client's token never reaches the upstream and the upstream's secret never reaches a
tool result or the log.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from tests.fixtures.runtime import KANBAN_DRF, REPO, mapping_variant, write_grants
from tests.fixtures.servers import KanbanServer
from tests.runtime.gateway.conftest import CLIENT_TOKEN, GRANTS
from tests.runtime.gateway.helpers import DESTRUCTIVE, User, body, text

pytestmark = pytest.mark.anyio

TRIGGERS = [
    {"type": "card.open", "entity": "cards", "filter": "done = false", "capability": "summarize",
     "payload": ["title"]},
]  # fmt: skip


class _Recorder(BaseHTTPRequestHandler):
    """Forwards to the upstream and keeps every request line, header and body it saw."""

    upstream = ""
    seen: list[bytes] = []

    def _forward(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(size) if size else b""
        self.seen.append(self.requestline.encode() + bytes(self.headers) + data)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        answer = httpx.request(
            self.command, self.upstream + self.path, headers=headers, content=data
        )
        self.send_response(answer.status_code)
        for key, value in answer.headers.items():
            if key.lower() not in (
                "transfer-encoding",
                "connection",
                "content-length",
                "content-encoding",
            ):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = _forward

    def log_message(self, format: str, *args: Any) -> None:
        return


@dataclass
class Served:
    params: StdioServerParameters
    upstream_secret: str
    seen: list[bytes]
    stderr: Path


@pytest.fixture
def served(kanban: KanbanServer, tmp_path: Path) -> Iterator[Served]:
    recorder = type("Recorder", (_Recorder,), {"upstream": kanban.url, "seen": []})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), recorder)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    write_grants(store, GRANTS)
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__triggers=TRIGGERS)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "KANBAN_URL": f"http://127.0.0.1:{proxy.server_address[1]}",
        "KANBAN_TOKEN": kanban.token,
        "A2APP_HOME": str(tmp_path / "home"),
        "A2APP_TOKEN": CLIENT_TOKEN,
    }
    args = ["-m", "mapper", "mcp", str(mapping), "--store", store, "--allow-unverified"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(tmp_path))
    try:
        yield Served(params, kanban.token, recorder.seen, tmp_path / "stderr.log")
    finally:
        proxy.shutdown()


def _new_board(name: str) -> dict[str, Any]:
    return {"entity": "boards", "action": "create", "data": {"name": name}}


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def _client(served: Served, **kwargs: Any) -> Client:
    return Client(served.params, **kwargs)


async def test_walk_writes_confirmations_and_tasks(served: Served) -> None:
    user = User(confirm=True)
    results: list[str] = []

    async def call(client: Client, tool: str, args: dict[str, Any]) -> types.CallToolResult:
        result = await client.call_tool(tool, args)
        results.append(text(result))
        return result

    async with _client(served, elicitation_callback=user) as client:
        assert client.protocol_version == "2026-07-28"
        listed = await client.session.list_tools()
        assert [t.name for t in listed.tools] == ["describe", "records", "operation", "tasks"]
        assert listed.cache_scope == "public" and (listed.ttl_ms or 0) > 0
        # What the model reads is the tools array; the SDK adds its own _meta around it.
        wire = listed.model_dump(by_alias=True, mode="json", exclude_none=True)
        sizes = {"result": _size(wire), "tools": _size(wire["tools"])}
        print("MCP_SIZES", json.dumps(sizes))
        assert sizes["tools"] <= 925, sizes
        # describe: root -> module -> entity
        root = body(await call(client, "describe", {}))
        print("MCP_SIZES", json.dumps({"describe root": len(results[-1])}))
        assert root["level"] == "root" and root["schemaVersion"].startswith("sv_")
        module = body(await call(client, "describe", {"path": "board"}))
        print("MCP_SIZES", json.dumps({"describe board": len(results[-1])}))
        assert module["level"] == "module"
        entity = body(await call(client, "describe", {"path": "board/cards"}))
        print("MCP_SIZES", json.dumps({"describe board/cards": len(results[-1])}))
        assert entity["level"] == "entity" and "title" in entity["fields"]
        # a refused write names every violation at once
        bad = await call(client, "records", {"entity": "cards", "action": "create",
                                             "data": {"priority": "soon", "nope": 1}})  # fmt: skip
        assert bad.is_error
        codes = {v["code"] for v in body(bad)["violations"]}
        assert {"invalid_enum", "unknown_field", "missing_required"} <= codes
        # bad arguments to the tool itself: every one at once, too
        wrong = await call(client, "records", {"action": "fetch", "extra": True})
        assert wrong.is_error and len(body(wrong)["violations"]) == 3
        # a correct write: the receipt is the first line
        made = await call(client, "records", {"entity": "boards", "action": "create",
                                              "data": {"name": "Launch"}})  # fmt: skip
        assert not made.is_error, text(made)
        assert text(made).splitlines()[0].startswith("Created board")
        board = str(body(made)["id"])
        # a destructive operation: asked, accepted, run
        done = await call(client, "operation", {"name": DESTRUCTIVE, "args": {"board": board}})
        assert not done.is_error, text(done)
        assert len(user.asked) == 1
        read = body(
            await call(client, "records", {"entity": "boards", "action": "get", "id": board})
        )
        assert read["archived"] is True
        # tasks: the trigger's tasks, one read by id
        listing = body(await call(client, "tasks", {"action": "list"}))
        assert listing["tasks"], listing
        task = listing["tasks"][0]
        one = body(await call(client, "tasks", {"action": "get", "id": task["id"]}))
        assert one["id"] == task["id"] and one["request"]["capability"] == "summarize"
        events = body(await call(client, "tasks", {"action": "events", "since": "0"}))
        assert events["events"]
    # the canary: the client's token never reached the upstream; the upstream's secret
    # never reached a tool result
    assert served.seen, "the upstream saw no request"
    assert not any(CLIENT_TOKEN.encode() in raw for raw in served.seen)
    assert any(served.upstream_secret.encode() in raw for raw in served.seen)
    assert not any(served.upstream_secret in r for r in results)


async def test_declined_confirmation_does_not_run(served: Served) -> None:
    user = User(confirm=False)
    # the handshake era: the question is a mid-call elicitation/create
    legacy = _client(served, mode="legacy", elicitation_callback=user)
    async with legacy as client:
        made = body(await client.call_tool("records", _new_board("Keep")))
        board = str(made["id"])
        refused = await client.call_tool(
            "operation", {"name": DESTRUCTIVE, "args": {"board": board}}
        )
        assert refused.is_error and body(refused)["code"] == "approval_denied"
        assert len(user.asked) == 1
        read = body(
            await client.call_tool("records", {"entity": "boards", "action": "get", "id": board})
        )
        assert read["archived"] is False


async def test_client_without_elicitation_is_refused(served: Served) -> None:
    async with _client(served) as client:
        made = body(await client.call_tool("records", _new_board("Plain")))
        board = str(made["id"])
        refused = await client.call_tool(
            "operation", {"name": DESTRUCTIVE, "args": {"board": board}}
        )
        assert refused.is_error and body(refused)["code"] == "confirmation_unavailable"
        read = body(
            await client.call_tool("records", {"entity": "boards", "action": "get", "id": board})
        )
        assert read["archived"] is False


def test_refuses_a_token_file_others_can_read(tmp_path: Path) -> None:
    import subprocess

    token = tmp_path / "token"
    token.write_text(CLIENT_TOKEN + "\n")
    token.chmod(0o644)
    done = subprocess.run(
        [sys.executable, "-m", "mapper", "mcp", str(KANBAN_DRF), "--allow-unverified",
         "--store", f"sqlite:///{tmp_path / 's.sqlite3'}", "--token-file", str(token)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "A2APP_HOME": str(tmp_path / "home"),
             "KANBAN_TOKEN": "x"},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert "0644" in done.stderr and "chmod 600" in done.stderr
