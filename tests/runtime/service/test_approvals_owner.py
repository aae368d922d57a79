"""`serve.approvals: owner` end to end: the real Django sample, the runtime, and the owner
answering with `a2map approvals`, on SQLite and on PostgreSQL.

Every outcome is checked on the upstream itself, read directly.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.store import Store
from tests.fixtures.databases import DATABASES, database
from tests.fixtures.runtime import (
    KANBAN_DRF,
    GrantSpec,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, start_kanban

APP = "kanban-drf"
TOKEN = "a2app_owner_mode_agent"
AGENT = {"x-a2app-token": TOKEN, "x-a2app-agent": "test-agent"}
GRANTS = (GrantSpec("cred_agent", "agent", ("*",), TOKEN),)
OP = "/api/ops/archive-board"


@dataclass
class Stack:
    upstream: KanbanServer
    runtime: RuntimeServer
    store_url: str

    def op(self, args: dict[str, Any], key: str | None = None) -> httpx.Response:
        headers = {**AGENT, **({"x-a2app-approval": key} if key else {})}
        return httpx.post(self.runtime.url + OP, json=args, headers=headers, timeout=30)

    def archived(self, board: str) -> bool:
        response = httpx.get(
            f"{self.upstream.api}/boards/{board}/", headers=self.upstream.headers, timeout=30
        )
        assert response.status_code == 200, response.text
        return bool(response.json()["archived"])

    def new_board(self, name: str) -> str:
        response = httpx.post(
            self.runtime.url + "/api/collections/boards/records",
            json={"name": name},
            headers=AGENT,
            timeout=30,
        )
        assert response.status_code == 200, response.text
        return str(response.json()["id"])

    def owner(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`a2map approvals ...` as the owner types it, in its own process."""
        return subprocess.run(
            [sys.executable, "-m", "mapper", "approvals", *args, "--store", self.store_url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def audit(self) -> list[tuple[str, str, str | None]]:
        with Store.open(self.store_url) as store:
            entries = store.audit_entries(APP, 0, 1000)
        return [(e.target, e.outcome, e.code) for e in entries if e.target == "op:archive-board"]


def _stack(mode: str | None, kind: str, tmp_path: Path) -> Iterator[Stack]:
    overrides = {"serve__approvals": mode} if mode else {}
    mapping = mapping_variant(KANBAN_DRF, tmp_path, **overrides)
    with (
        database(kind, tmp_path) as url,
        start_kanban() as upstream,
        start_runtime(mapping, upstream, store_url=url, grants=GRANTS) as rt,
    ):
        yield Stack(upstream, rt, url)


@pytest.fixture(params=DATABASES)
def owner_stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    yield from _stack("owner", request.param, tmp_path)


@pytest.fixture(params=DATABASES)
def host_stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    yield from _stack(None, request.param, tmp_path)


def test_an_owner_approval_runs_the_call_once(owner_stack: Stack) -> None:
    stack, args = owner_stack, {"board": "board_main"}
    first = stack.op(args)
    assert first.status_code == 428, first.text
    body = first.json()
    assert body["code"] == "approval_required" and body["expiresAt"].endswith("Z")
    key = body["approvalKey"]
    assert f"a2map approvals approve {key}" in body["message"]

    pending = stack.op(args, key)
    assert pending.status_code == 428
    assert set(pending.json()) == {"a2app", "ok", "code", "message", "approvalKey", "expiresAt"}
    assert (pending.json()["code"], pending.json()["approvalKey"]) == ("approval_pending", key)
    assert stack.archived("board_main") is False

    listed = stack.owner("list", "--json", "--app", APP)
    assert listed.returncode == 0, listed.stderr
    [shown] = json.loads(listed.stdout)
    assert (shown["key"], shown["operation"], shown["args"], shown["state"]) == (
        key,
        "archive-board",
        args,
        "pending",
    )
    table = stack.owner("list")
    assert key[:12] in table.stdout and '{"board":"board_main"}' in table.stdout

    approved = stack.owner("approve", key[:10], "--app", APP)
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith(f"approved {key} (app {APP}): archive-board")

    ran = stack.op(args, key)
    assert ran.status_code == 200, ran.text
    assert ran.json()["operation"] == "archive-board"
    assert stack.archived("board_main") is True

    again = stack.op(args, key)
    assert again.status_code == 428 and again.json()["code"] == "approval_required"
    used = json.loads(stack.owner("list", "--json").stdout)
    assert [a["state"] for a in used] == ["used"]
    # the 428s are not audited; the one run is
    assert stack.audit() == [("op:archive-board", "ok", None)]


def test_a_denied_call_is_refused_and_never_reaches_the_upstream(owner_stack: Stack) -> None:
    stack = owner_stack
    board = stack.new_board("Keep me")
    args = {"board": board}
    key = stack.op(args).json()["approvalKey"]
    denied = stack.owner("deny", key)
    assert denied.returncode == 0, denied.stderr
    assert denied.stdout.startswith(f"denied {key}")

    for presented in (key, None):
        refused = stack.op(args, presented)
        assert refused.status_code == 403, refused.text
        body = refused.json()
        assert set(body) == {"a2app", "ok", "code", "message", "approvalKey"}
        assert (body["code"], body["approvalKey"]) == ("approval_denied", key)
    assert stack.archived(board) is False
    assert stack.audit() == [("op:archive-board", "rejected", "approval_denied")] * 2


def test_a_key_for_other_arguments_runs_nothing(owner_stack: Stack) -> None:
    stack = owner_stack
    key = stack.op({"board": "board_main"}).json()["approvalKey"]
    assert stack.owner("approve", key).returncode == 0
    other = stack.new_board("Other")
    wrong = stack.op({"board": other}, key)
    assert wrong.status_code == 428 and wrong.json()["code"] == "approval_required"
    assert wrong.json()["approvalKey"] != key
    assert stack.archived(other) is False and stack.archived("board_main") is False


def test_the_owner_cli_refuses_what_it_cannot_decide(owner_stack: Stack) -> None:
    stack = owner_stack
    assert stack.owner("approve", "0" * 64).returncode == 1
    assert stack.owner("approve", "xyz").returncode == 2
    key = stack.op({"board": "board_main"}).json()["approvalKey"]
    assert stack.owner("approve", key).returncode == 0
    assert stack.op({"board": "board_main"}, key).status_code == 200
    late = stack.owner("deny", key)
    assert late.returncode == 1 and "was used at" in late.stderr


def test_the_default_mode_runs_the_returned_key_without_the_owner(host_stack: Stack) -> None:
    stack, args = host_stack, {"board": "board_main"}
    first = stack.op(args)
    assert first.status_code == 428 and "expiresAt" not in first.json()
    key = first.json()["approvalKey"]
    ran = stack.op(args, key)
    assert ran.status_code == 200, ran.text
    assert stack.archived("board_main") is True
    assert stack.op(args, key).json()["code"] == "approval_required"
    [shown] = json.loads(stack.owner("list", "--json").stdout)
    assert (shown["args"], shown["state"]) == (args, "used")
