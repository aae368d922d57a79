"""The `crud` executor: declared record actions with fixed values or a fixed filter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.fixtures.runtime import GrantSpec, start_runtime, with_crud_ops
from tests.fixtures.servers import start_kanban

TOKEN = "a2app_crud_token"
AUTH = {"x-a2app-token": TOKEN}
GRANTS = (GrantSpec("cred_crud", "crud", ("*",), TOKEN),)


def test_crud_operations_act_on_records(tmp_path: Path) -> None:
    mapping = with_crud_ops(tmp_path)
    with (
        start_kanban(seed="rich") as upstream,
        start_runtime(mapping, upstream, grants=GRANTS) as rt,
    ):
        cards = httpx.get(f"{upstream.api}/cards/?page_size=1000", headers=upstream.headers).json()
        urgent_open = [c for c in cards["results"] if c["priority"] == "urgent" and not c["done"]]

        def run(name: str, args: dict[str, Any], **headers: str) -> httpx.Response:
            return httpx.post(
                f"{rt.url}/api/ops/{name}", json=args, headers={**AUTH, **headers}, timeout=30
            )

        assert run("count-urgent", {}).json()["result"] == {"count": len(urgent_open)}
        closed = run("close-card", {"card": urgent_open[0]["id"]}).json()["result"]
        assert closed["done"] is True
        assert run("count-urgent", {}).json()["result"] == {"count": len(urgent_open) - 1}
        created = run("new-todo", {"title": "From a crud op"}).json()["result"]
        direct = httpx.get(
            f"{upstream.api}/cards/{created['id']}/", headers=upstream.headers
        ).json()
        assert (direct["title"], direct["list"], direct["priority"]) == (
            "From a crud op",
            "list_todo",
            "low",
        )
        refused = run("new-todo", {"title": "x" * 201})
        assert refused.json()["code"] == "invalid_string"
        approval = run("drop-card", {"card": created["id"]})
        assert approval.status_code == 428
        gone = run(
            "drop-card",
            {"card": created["id"]},
            **{"x-a2app-approval": approval.json()["approvalKey"]},
        )
        assert gone.json()["result"] == {"deleted": created["id"]}
        assert (
            httpx.get(
                f"{upstream.api}/cards/{created['id']}/", headers=upstream.headers
            ).status_code
            == 404
        )
