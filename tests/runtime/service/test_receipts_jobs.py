"""Receipts, the audit file, jobs and the operations listing, over real HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_receipts_full"
READER = "a2app_receipts_reader"
FULL = {"x-a2app-token": TOKEN, "x-a2app-agent": "claimed-name"}
GRANTS = (
    GrantSpec("cred_full", "full-agent", ("*",), TOKEN),
    GrantSpec("cred_lists", "lists-reader", ("data:lists:read",), READER),
)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[KanbanServer, RuntimeServer]]:
    with start_kanban() as upstream, start_runtime(KANBAN_DRF, upstream, grants=GRANTS) as rt:
        yield upstream, rt


def post(rt: RuntimeServer, path: str, body: Any, **headers: str) -> httpx.Response:
    return httpx.post(rt.url + path, json=body, headers={**FULL, **headers}, timeout=30)


def receipt_of(response: httpx.Response) -> str:
    return unquote(response.headers["x-a2app-receipt"])


def test_receipts_come_from_the_stored_record(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    created = post(rt, "/api/collections/cards/records",
                   {"title": "Café order", "list": "list_todo", "priority": "high"})  # fmt: skip
    assert created.status_code == 200
    assert receipt_of(created) == 'Created card "Café order": list "To Do", priority high.'
    card = created.json()["id"]
    updated = httpx.patch(
        f"{rt.url}/api/collections/cards/records/{card}", json={"done": True}, headers=FULL
    )
    assert receipt_of(updated) == 'Updated card "Café order": done true.'
    ran = post(rt, "/api/ops/finish-card", {"card": "card_seed"})
    assert receipt_of(ran) == 'Ran finish-card on card "Welcome card".'
    deleted = httpx.delete(f"{rt.url}/api/collections/cards/records/{card}", headers=FULL)
    assert receipt_of(deleted) == 'Deleted card "Café order".'
    refused = post(rt, "/api/collections/cards/records", {"title": "x", "bogus": 1})
    assert "x-a2app-receipt" not in refused.headers


def test_receipts_feed_pages_and_filters_by_reach(
    served: tuple[KanbanServer, RuntimeServer],
) -> None:
    _, rt = served
    post(rt, "/api/collections/lists/records", {"title": "Later"})
    post(rt, "/api/collections/cards/records", {"title": "Hidden from the lists reader"})
    feed = httpx.get(rt.url + "/api/_a2app/receipts", headers=FULL).json()
    texts = [r["text"] for r in feed["receipts"]]
    assert 'Created list "Later".' in texts
    assert 'Created card "Hidden from the lists reader".' in texts
    narrow = httpx.get(rt.url + "/api/_a2app/receipts", headers={"x-a2app-token": READER}).json()
    assert {r["target"] for r in narrow["receipts"]} == {"data:lists"}
    after = httpx.get(
        rt.url + f"/api/_a2app/receipts?since={feed['nextCursor']}", headers=FULL
    ).json()
    assert after["receipts"] == [] and after["nextCursor"] == feed["nextCursor"]
    bad = httpx.get(rt.url + "/api/_a2app/receipts?since=abc", headers=FULL)
    assert (bad.status_code, bad.json()["code"]) == (400, "usage")


def test_audit_file_has_one_line_per_attempt_and_no_secret(
    served: tuple[KanbanServer, RuntimeServer],
) -> None:
    upstream, rt = served
    post(rt, "/api/collections/cards/records", {"title": "Audit line"})
    post(rt, "/api/collections/cards/records", {"nope": 1})
    path = rt.state_dir / "audit-kanban-drf.jsonl"
    assert path.stat().st_mode & 0o777 == 0o600
    text = path.read_text()
    entries = [json.loads(line) for line in text.splitlines()]
    assert {"outcome": "ok", "credential_id": "cred_full", "agent_name": "full-agent",
            "asserted_agent": "claimed-name"}.items() <= entries[-2].items()  # fmt: skip
    assert (entries[-1]["outcome"], entries[-1]["code"]) == ("rejected", "unknown_field")
    for secret in (TOKEN, READER, upstream.token):
        assert secret not in text


def test_jobs_answer_at_once_and_are_polled(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    started = time.monotonic()
    answer = post(rt, "/api/ops/board-report", {"board": "board_main"})
    assert answer.status_code == 200 and time.monotonic() - started < 1.5
    job_id = answer.json()["result"]["jobId"]
    assert "(job " in receipt_of(answer)
    deadline = time.monotonic() + 30
    doc: dict[str, Any] = {}
    while time.monotonic() < deadline:
        doc = httpx.get(f"{rt.url}/api/_jobs/{job_id}", headers=FULL).json()
        if doc["status"] not in ("queued", "running"):
            break
        time.sleep(0.2)
    assert doc["status"] == "completed", doc
    assert doc["result"]["board"] == "board_main"
    stranger = httpx.get(f"{rt.url}/api/_jobs/{job_id}", headers={"x-a2app-token": READER})
    assert stranger.status_code == 403
    missing = httpx.get(f"{rt.url}/api/_jobs/job_nope", headers=FULL)
    assert (missing.status_code, missing.json()["code"]) == (404, "job_not_found")


def test_a_job_cut_off_by_a_restart_reads_interrupted(tmp_path: Path) -> None:
    with start_kanban() as upstream:
        store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
        with start_runtime(KANBAN_DRF, upstream, store_url=store, grants=GRANTS) as rt:
            answer = post(rt, "/api/ops/board-report", {"board": "board_main"})
            job_id = answer.json()["result"]["jobId"]
            rt.process.kill()  # no goodbye: the job is cut off mid-flight
            rt.process.wait(5)
        with start_runtime(KANBAN_DRF, upstream, store_url=store) as again:
            doc = httpx.get(f"{again.url}/api/_jobs/{job_id}", headers=FULL).json()
            assert (doc["status"], doc["reason"]) == ("failed", "interrupted")
            time.sleep(2.5)
            assert (
                httpx.get(f"{again.url}/api/_jobs/{job_id}", headers=FULL).json()["status"]
                == "failed"
            )


def test_operations_listing(served: tuple[KanbanServer, RuntimeServer]) -> None:
    _, rt = served
    listing = httpx.get(rt.url + "/api/_ops").json()
    by_name = {op["name"]: op for op in listing["operations"]}
    assert list(by_name) == ["archive-board", "count-finished", "finish-card", "board-report"]
    assert by_name["finish-card"]["params"]["card"] == {
        "type": "ref",
        "entity": "cards",
        "required": True,
    }
    assert by_name["board-report"]["executor"] == "job"
    assert (
        by_name["count-finished"]["runnable"] is True
        and by_name["finish-card"]["runnable"] is False
    )
