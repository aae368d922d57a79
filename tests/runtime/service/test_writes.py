"""Guarded writes over real HTTP: nothing is reported done that the upstream did not store.

Every refusal is checked against the upstream itself, read directly.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.store import Store
from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_writer_token"
FULL = {"x-a2app-token": TOKEN, "x-a2app-agent": "test-agent"}
GRANTS = (GrantSpec("cred_writer", "writer", ("*",), TOKEN),)


@dataclass
class Stack:
    upstream: KanbanServer
    runtime: RuntimeServer

    def a2app(self, method: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
        return httpx.request(
            method, self.runtime.url + path, json=body, headers={**FULL, **headers}, timeout=30
        )

    def direct(self, path: str) -> httpx.Response:
        return httpx.get(self.upstream.api + path, headers=self.upstream.headers, timeout=30)

    def cards_titled(self, title: str) -> list[dict[str, Any]]:
        return self.direct(f"/cards/?title={title}&page_size=1000").json()["results"]

    def data_version(self) -> str:
        return httpx.get(self.runtime.url + "/api/_a2app").json()["dataVersion"]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with start_kanban() as upstream, start_runtime(KANBAN_DRF, upstream, grants=GRANTS) as rt:
        yield Stack(upstream, rt)


def test_create_answers_200_with_the_stored_record(stack: Stack) -> None:
    before = stack.data_version()
    values = {"title": "Buy oats", "priority": "high", "due": "2027-01-02", "list": "list_doing"}
    response = stack.a2app("POST", "/api/collections/cards/records", values)
    assert response.status_code == 200, response.text
    card = response.json()
    assert card["id"].startswith("rec_") and card["created"]
    direct = stack.direct(f"/cards/{card['id']}/").json()
    assert {k: direct[k] for k in values} == values
    assert stack.data_version() != before


@dataclass(frozen=True)
class Refusal:
    name: str
    method: str
    path: str
    body: Any
    status: int
    codes: tuple[str, ...]


REFUSALS = [
    Refusal("unknown key DRF would drop", "POST", "/api/collections/cards/records",
            {"title": "Refused 1", "colour": "red"}, 400, ("unknown_field",)),
    Refusal("read-only field DRF would ignore", "POST", "/api/collections/cards/records",
            {"title": "Refused 2", "created": "2020-01-01T00:00:00Z"}, 400, ("read_only_field",)),
    Refusal("every violation at once", "POST", "/api/collections/cards/records",
            {"title": "x" * 201, "due": "31-12-2026", "done": "yes", "priority": "asap"}, 400,
            ("invalid_string", "invalid_daykey", "invalid_boolean", "invalid_enum")),
    Refusal("missing required", "POST", "/api/collections/cards/records", {"priority": "low"}, 400,
            ("missing_required",)),
    Refusal("blank required on PATCH", "PATCH", "/api/collections/cards/records/card_seed",
            {"title": ""}, 400, ("missing_required",)),
    Refusal("dangling ref", "POST", "/api/collections/cards/records",
            {"title": "Refused 3", "list": "list_nope"}, 400, ("invalid_ref",)),
    Refusal("dangling list<ref>", "POST", "/api/collections/cards/records",
            {"title": "Refused 4", "tags": ["tag_nope"]}, 400, ("invalid_ref",)),
    Refusal("true is not a number", "POST", "/api/collections/lists/records",
            {"title": "Refused 5", "position": True}, 400, ("invalid_number",)),
    Refusal("non-JSON body", "POST", "/api/collections/cards/records", None, 400,
            ("invalid_json",)),
]  # fmt: skip


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.name)
def test_refused_writes_never_reach_the_upstream(stack: Stack, case: Refusal) -> None:
    before = stack.data_version()
    count_before = stack.direct("/cards/?page_size=1").json()["count"]
    if case.body is None:
        response = httpx.post(stack.runtime.url + case.path, content=b"not json{", headers=FULL)
    else:
        response = stack.a2app(case.method, case.path, case.body)
    assert response.status_code == case.status, response.text
    body = response.json()
    # A body that is not one JSON object is refused whole: nothing else is said of it.
    assert [v["code"] for v in body.get("violations", [body])] == list(case.codes)
    assert body["code"] == case.codes[0]
    assert stack.direct("/cards/?page_size=1").json()["count"] == count_before
    assert stack.direct("/cards/card_seed/").json()["title"] == "Welcome card"
    assert stack.data_version() == before


def test_upstream_validation_becomes_upstream_rejected(stack: Stack) -> None:
    first = stack.a2app("POST", "/api/collections/tags/records", {"name": "unique-tag"})
    assert first.status_code == 200
    again = stack.a2app("POST", "/api/collections/tags/records", {"name": "unique-tag"})
    body = again.json()
    assert (again.status_code, body["code"]) == (400, "upstream_rejected")
    assert body["violations"][0]["field"] == "name"
    assert "detail" not in body


def test_patch_reads_back_the_whole_record(stack: Stack) -> None:
    created = stack.a2app("POST", "/api/collections/cards/records", {"title": "Patch me"}).json()
    response = stack.a2app("PATCH", f"/api/collections/cards/records/{created['id']}",
                           {"done": True, "priority": "urgent"})  # fmt: skip
    assert response.status_code == 200
    assert response.json()["done"] is True and response.json()["title"] == "Patch me"
    assert stack.direct(f"/cards/{created['id']}/").json()["priority"] == "urgent"
    missing = stack.a2app("PATCH", "/api/collections/cards/records/nope", {"done": True})
    assert (missing.status_code, missing.json()["code"]) == (404, "record_not_found")


def test_delete_refuses_while_restricting_refs_point_at_the_record(stack: Stack) -> None:
    response = stack.a2app("DELETE", "/api/collections/lists/records/list_todo")
    body = response.json()
    assert (response.status_code, body["code"]) == (409, "record_referenced")
    assert {"entity": "cards", "field": "list", "ids": ["card_seed"]} in body["referencedBy"]
    assert stack.direct("/lists/list_todo/").status_code == 200


def test_delete_is_proven_by_a_second_read(stack: Stack) -> None:
    created = stack.a2app("POST", "/api/collections/cards/records", {"title": "Delete me"}).json()
    response = stack.a2app("DELETE", f"/api/collections/cards/records/{created['id']}")
    assert response.json() == {"a2app": True, "ok": True, "deleted": created["id"]}
    assert stack.direct(f"/cards/{created['id']}/").status_code == 404
    again = stack.a2app("DELETE", f"/api/collections/cards/records/{created['id']}")
    assert (again.status_code, again.json()["code"]) == (404, "record_not_found")


def test_idempotency_key_under_a_race_writes_once(stack: Stack) -> None:
    def post(_: int) -> httpx.Response:
        return stack.a2app("POST", "/api/collections/cards/records", {"title": "Raced once"},
                           **{"idempotency-key": "race-1"})  # fmt: skip

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(post, range(8)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * 7
    assert len(stack.cards_titled("Raced once")) == 1
    replay = post(0).json()
    created = next(r.json() for r in responses if r.status_code == 200)
    assert (replay["code"], replay["id"]) == ("duplicate_request", created["id"])


def test_a_refused_keyed_write_leaves_the_key_free(stack: Stack) -> None:
    key = {"idempotency-key": "retry-after-fix"}
    bad = stack.a2app(
        "POST", "/api/collections/cards/records", {"title": "Key", "due": "soon"}, **key
    )
    assert bad.status_code == 400
    good = stack.a2app("POST", "/api/collections/cards/records", {"title": "Key"}, **key)
    assert good.status_code == 200


def test_operations_run_on_the_upstream_with_approval(stack: Stack) -> None:
    created = stack.a2app("POST", "/api/collections/cards/records", {"title": "Finish me"}).json()
    done = stack.a2app("POST", "/api/ops/finish-card", {"card": created["id"]})
    assert done.json()["ok"] is True
    assert stack.direct(f"/cards/{created['id']}/").json()["done"] is True
    dangling = stack.a2app("POST", "/api/ops/finish-card", {"card": "nope"}).json()
    assert dangling["code"] == "invalid_ref"
    args = {"board": "board_main"}
    first = stack.a2app("POST", "/api/ops/archive-board", args)
    assert first.status_code == 428
    key = first.json()["approvalKey"]
    other = stack.a2app("POST", "/api/collections/boards/records", {"name": "Other"}).json()["id"]
    wrong = stack.a2app(
        "POST", "/api/ops/archive-board", {"board": other}, **{"x-a2app-approval": key}
    )
    assert wrong.status_code == 428 and wrong.json()["approvalKey"] != key
    assert stack.direct("/boards/board_main/").json()["archived"] is False
    ran = stack.a2app("POST", "/api/ops/archive-board", args, **{"x-a2app-approval": key})
    assert ran.status_code == 200 and ran.json()["operation"] == "archive-board"
    assert stack.direct("/boards/board_main/").json()["archived"] is True
    reused = stack.a2app("POST", "/api/ops/archive-board", args, **{"x-a2app-approval": key})
    assert reused.status_code == 428


def test_keyed_operation_replay_names_the_operation(stack: Stack) -> None:
    key = {"idempotency-key": "op-once"}
    assert stack.a2app("POST", "/api/ops/count-finished", {}, **key).status_code == 200
    replay = stack.a2app("POST", "/api/ops/count-finished", {}, **key).json()
    assert (replay["code"], replay["operation"]) == ("duplicate_request", "count-finished")


def test_audit_records_attempts_refusals_included(stack: Stack) -> None:
    stack.a2app("POST", "/api/collections/cards/records", {"title": "Audited"})
    stack.a2app("POST", "/api/collections/cards/records", {"bogus": 1})
    httpx.post(stack.runtime.url + "/api/collections/cards/records", json={"title": "anon"})
    store = Store.open(stack.runtime.store_url)
    try:
        entries = store.audit_entries("kanban-drf", 0, 1000)
    finally:
        store.close()
    outcomes = {(e.credential_id, e.outcome, e.code) for e in entries}
    assert ("cred_writer", "ok", None) in outcomes
    assert ("cred_writer", "rejected", "unknown_field") in outcomes
    assert (None, "rejected", "agent_token_required") in outcomes
    assert any(e.asserted_agent == "test-agent" and e.agent_name == "writer" for e in entries)


def test_a_silently_dropped_field_is_not_stored(tmp_path: Path) -> None:
    with (
        start_kanban(fault="drop-field") as upstream,
        start_runtime(KANBAN_DRF, upstream, grants=GRANTS) as rt,
    ):
        stack = Stack(upstream, rt)
        before = stack.data_version()
        response = stack.a2app(
            "POST", "/api/collections/cards/records", {"title": "Dropped", "due": "2027-03-04"}
        )
        body = response.json()
        assert (response.status_code, body["code"]) == (422, "not_stored")
        assert body["violations"] == [
            {"code": "not_stored", "field": "due", "expected": "2027-03-04", "got": None}
        ]
        # the truth, read directly: the record landed without its date
        stored = stack.direct(f"/cards/{body['id']}/").json()
        assert stored["title"] == "Dropped" and stored["due"] is None
        assert stack.data_version() == before
