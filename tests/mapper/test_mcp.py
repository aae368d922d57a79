"""`a2map mcp` on stdio against the Django kanban sample, driven by the SDK's own client.

The runtime's upstream traffic passes a recording proxy, so the canary can show that the
MCP client's token never reaches the upstream, and that the upstream's secret never
reaches a tool result or the command's log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.fixtures.runtime import CONFORMANCE, KANBAN_DRF, REPO, mapping_variant, write_grants
from tests.fixtures.servers import KanbanServer
from tests.runtime.gateway.conftest import CLIENT_TOKEN, GRANTS
from tests.runtime.gateway.helpers import (
    TRIGGERS,
    Connect,
    Session,
    body,
    confirmations,
    owner_approves,
    walk,
)

pytestmark = pytest.mark.anyio
_HOP = ("transfer-encoding", "connection", "content-length", "content-encoding")


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
            if key.lower() not in _HOP:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = _forward

    def log_message(self, format: str, *args: Any) -> None:
        return


@dataclass
class Served:
    env: dict[str, str]
    store: str
    seen: list[bytes]
    log: Path
    cwd: Path

    def connect(self, *mappings: Path, errlog: TextIO) -> Connect:
        args = ["-m", "mapper", "mcp", *map(str, mappings), "--store", self.store,
                "--allow-unverified"]  # fmt: skip
        params = StdioServerParameters(
            command=sys.executable, args=args, env=self.env, cwd=str(self.cwd)
        )

        def connect(**kwargs: Any) -> Client:
            return Client(stdio_client(params, errlog=errlog), **kwargs)

        return connect


@pytest.fixture
def served(kanban: KanbanServer, tmp_path: Path) -> Iterator[Served]:
    recorder = type("Recorder", (_Recorder,), {"upstream": kanban.url, "seen": []})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), recorder)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    write_grants(store, GRANTS)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "KANBAN_URL": f"http://127.0.0.1:{proxy.server_address[1]}",
        "KANBAN_TOKEN": kanban.token,
        "A2APP_HOME": str(tmp_path / "home"),
        "A2APP_TOKEN": CLIENT_TOKEN,
    }
    try:
        yield Served(env, store, recorder.seen, tmp_path / "stderr.log", tmp_path)
    finally:
        proxy.shutdown()


async def test_scenarios_and_canary(served: Served, kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__triggers=TRIGGERS)
    seen: list[str] = []
    with served.log.open("w") as errlog:
        connect = served.connect(mapping, errlog=errlog)
        sizes = await walk(connect, seen)
        await confirmations(connect, seen)
    print("MCP_SIZES", json.dumps(sizes))
    assert sizes["tools/list tools"] <= 950, sizes
    # the canary: the client's token never reached the upstream, whose own secret did;
    # that secret reached no tool result and no line of the command's log
    assert served.seen, "the upstream saw no request"
    assert not any(CLIENT_TOKEN.encode() in raw for raw in served.seen)
    assert any(kanban.token.encode() in raw for raw in served.seen)
    assert not any(kanban.token in t for t in seen)
    log = served.log.read_text()
    assert kanban.token not in log and CLIENT_TOKEN not in log


async def test_owner_approvals(served: Served, tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__approvals="owner")
    with served.log.open("w") as errlog:
        await owner_approves(served.connect(mapping, errlog=errlog), served.store, [])


async def test_several_apps(served: Served) -> None:
    with served.log.open("w") as errlog:
        async with served.connect(KANBAN_DRF, CONFORMANCE, errlog=errlog)() as client:
            s = Session(client, [])
            apps = body(await s.call("describe", {}))
            assert [a["id"] for a in apps["apps"]] == ["kanban-drf", "conformance_kanban"]
            for app in ("kanban-drf", "conformance_kanban"):
                root = body(await s.call("describe", {"app": app}))
                assert root["level"] == "root" and root["app"]["id"] == app
            unnamed = await s.call("records", {"entity": "cards", "action": "list"})
            assert unnamed.is_error and body(unnamed)["violations"][0]["field"] == "app"
            cards = await s.call("records", {"app": "kanban-drf", "entity": "cards",
                                             "action": "list"})  # fmt: skip
            assert not cards.is_error and body(cards)["items"]


def test_refuses_an_unknown_token(served: Served) -> None:
    env = {**served.env, "A2APP_TOKEN": "a2app_not_a_grant"}
    done = subprocess.run(
        [sys.executable, "-m", "mapper", "mcp", str(KANBAN_DRF), "--allow-unverified",
         "--store", served.store],
        capture_output=True, text=True, timeout=60, cwd=served.cwd, env=env,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert "not known to kanban-drf" in done.stderr and "a2app_not_a_grant" not in done.stderr


def test_refuses_a_token_file_others_can_read(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(CLIENT_TOKEN + "\n")
    token.chmod(0o644)
    env = {**os.environ, "PYTHONPATH": str(REPO), "A2APP_HOME": str(tmp_path / "home"),
           "KANBAN_TOKEN": "x"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "mapper", "mcp", str(KANBAN_DRF), "--allow-unverified",
         "--store", f"sqlite:///{tmp_path / 's.sqlite3'}", "--token-file", str(token)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert "0644" in done.stderr and "chmod 600" in done.stderr
