"""Upstream faults during writes: the answer tells the truth about what landed.

The sample API injects one fault into its writes only (`--fault-on writes`), so the
runtime's own reads (ref checks, read-back) still work. For every fault and every kind
of write (a create, an update, an operation) the runtime must:

* answer with the code ARCHITECTURE §6 gives that fault, never a success;
* leave `dataVersion` where it was and audit the attempt as rejected;
* never claim less than the truth: read directly, the upstream holds nothing the
  answer called done. Where the write partly landed the answer is `not_stored` with
  the record's id; where it landed although no answer came back (the upstream died
  after committing) the code is one whose registry entry says a retry may help,
  i.e. the outcome is unknown to the runtime, and the client must check before
  reporting the write as failed or as done.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.protocol import REGISTRY
from runtime.store import Store
from tests.fixtures.runtime import (
    KANBAN_DRF,
    GrantSpec,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_fault_writer_token"
FULL = {"x-a2app-token": TOKEN, "x-a2app-agent": "fault-agent"}
GRANTS = (GrantSpec("cred_fault_writer", "writer", ("*",), TOKEN),)
APP_ID = "kanban-drf"
TITLE = "Written under a fault"
DUE = "2027-03-04"
SEED_CARD = "card_seed"
SEED_TITLE = "Welcome card"
RETRY_AFTER = 7  # the sample's Retry-After under `--fault ratelimit`


@dataclass(frozen=True)
class Write:
    name: str
    method: str
    path: str
    body: dict[str, Any]
    target: str  # the audit target


CREATE = Write(
    "create", "POST", "/api/collections/cards/records", {"title": TITLE, "due": DUE}, "data:cards"
)
UPDATE = Write(
    "update",
    "PATCH",
    f"/api/collections/cards/records/{SEED_CARD}",
    {"title": TITLE, "due": DUE},
    "data:cards",
)
FINISH = Write("finish-card", "POST", "/api/ops/finish-card", {"card": SEED_CARD}, "op:finish-card")


@dataclass(frozen=True)
class Case:
    fault: str
    write: Write
    status: int
    code: str
    landed: str  # what the upstream holds afterwards: "nothing", "partly" or "all"

    @property
    def id(self) -> str:
        return f"{self.fault}-{self.write.name}"


CASES = [
    # the upstream commits, then exits without answering
    Case("die-mid-write", CREATE, 502, "upstream_unavailable", "all"),
    Case("die-mid-write", UPDATE, 502, "upstream_unavailable", "all"),
    Case("die-mid-write", FINISH, 502, "upstream_unavailable", "all"),
    # no answer within upstream.timeoutSeconds (1 s here). The sample handles the write
    # after 60 s, long after this test: "nothing" is what holds when the answer is given,
    # and upstream_timeout promises no more than that (the outcome may still change).
    Case("hang", CREATE, 504, "upstream_timeout", "nothing"),
    Case("hang", UPDATE, 504, "upstream_timeout", "nothing"),
    Case("hang", FINISH, 504, "upstream_timeout", "nothing"),
    # 500 with an HTML page
    Case("error", CREATE, 502, "upstream_error", "nothing"),
    Case("error", UPDATE, 502, "upstream_error", "nothing"),
    Case("error", FINISH, 502, "upstream_error", "nothing"),
    # 200 with an HTML page instead of JSON
    Case("html", CREATE, 502, "upstream_error", "nothing"),
    Case("html", UPDATE, 502, "upstream_error", "nothing"),
    Case("html", FINISH, 502, "upstream_error", "nothing"),
    # 429 with Retry-After: 7
    Case("ratelimit", CREATE, 429, "upstream_rate_limited", "nothing"),
    Case("ratelimit", UPDATE, 429, "upstream_rate_limited", "nothing"),
    Case("ratelimit", FINISH, 429, "upstream_rate_limited", "nothing"),
    # a normal answer, but `due` was never stored (finish-card sends no `due`)
    Case("drop-field", CREATE, 422, "not_stored", "partly"),
    Case("drop-field", UPDATE, 422, "not_stored", "partly"),
]  # fmt: skip


@dataclass
class Stack:
    upstream: KanbanServer
    runtime: RuntimeServer
    data_dir: Path

    def a2app(self, write: Write) -> httpx.Response:
        return httpx.request(
            write.method,
            self.runtime.url + write.path,
            json=write.body,
            headers=FULL,
            timeout=30,
        )

    def data_version(self) -> str:
        version: str = httpx.get(self.runtime.url + "/api/_a2app", timeout=30).json()["dataVersion"]
        return version

    def audit(self, target: str) -> list[tuple[str, str | None]]:
        store = Store.open(self.runtime.store_url)
        try:
            entries = store.audit_entries(APP_ID, 0, 1000)
        finally:
            store.close()
        return [(e.outcome, e.code) for e in entries if e.target == target]


@contextlib.contextmanager
def faulty_stack(fault: str, tmp_path: Path) -> Iterator[Stack]:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, upstream__timeoutSeconds=1)
    data_dir = tmp_path / "kanban"
    data_dir.mkdir()
    with (
        start_kanban(fault=fault, fault_on="writes", data_dir=data_dir) as upstream,
        start_runtime(mapping, upstream, grants=GRANTS) as runtime,
    ):
        yield Stack(upstream, runtime, data_dir)


@contextlib.contextmanager
def upstream_truth(stack: Stack) -> Iterator[KanbanServer]:
    """The sample's data as it is now, read without the runtime.

    A sample that exited mid-write is started again, without the fault, on the same
    data directory: what it committed before dying is what it serves.
    """
    if stack.upstream.is_running():
        yield stack.upstream
        return
    with start_kanban(data_dir=stack.data_dir) as again:
        yield again


def direct(upstream: KanbanServer, path: str) -> Any:
    response = httpx.get(upstream.api + path, headers=upstream.headers, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def assert_upstream_holds(upstream: KanbanServer, case: Case, answer: dict[str, Any]) -> None:
    """Read directly: exactly what `case.landed` says, no more and no less."""
    created = direct(upstream, f"/cards/?title={TITLE}&page_size=1000")["results"]
    seed = direct(upstream, f"/cards/{SEED_CARD}/")
    untouched = (seed["title"], seed["due"], seed["done"]) == (SEED_TITLE, None, False)
    write = case.write.name
    if case.landed == "nothing":
        assert created == [] and untouched, (created, seed)
    elif write == "create":
        assert [c["title"] for c in created] == [TITLE] and untouched, (created, seed)
        assert created[0]["due"] == (DUE if case.landed == "all" else None)
        if case.landed == "partly":
            assert answer["id"] == created[0]["id"]
    elif write == "update":
        assert [c["id"] for c in created] == [SEED_CARD], created
        assert seed["title"] == TITLE and seed["done"] is False, seed
        assert seed["due"] == (DUE if case.landed == "all" else None)
        if case.landed == "partly":
            assert answer["id"] == SEED_CARD
    else:
        assert created == [], created
        assert (seed["title"], seed["due"], seed["done"]) == (SEED_TITLE, None, True), seed


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_faulty_write_is_never_reported_done(case: Case, tmp_path: Path) -> None:
    with faulty_stack(case.fault, tmp_path) as stack:
        before = stack.data_version()
        response = stack.a2app(case.write)
        body = response.json()
        assert (response.status_code, body["code"]) == (case.status, case.code), body
        assert body["ok"] is False and body["a2app"] is True
        assert "<html" not in response.text.lower()
        assert stack.upstream.token not in response.text
        if case.code == "upstream_rate_limited":
            assert body["retryAfterSeconds"] == RETRY_AFTER
        if case.code == "not_stored":
            assert body["violations"] == [
                {"code": "not_stored", "field": "due", "expected": DUE, "got": None}
            ]
            assert isinstance(body["id"], str) and body["id"]
        # the runtime neither counted it as a data change nor audited it as done
        assert stack.data_version() == before
        assert stack.audit(case.write.target) == [("rejected", case.code)]
        if case.fault == "die-mid-write":
            assert stack.upstream.wait_exit() != 0
        with upstream_truth(stack) as upstream:
            assert_upstream_holds(upstream, case, body)
    if case.landed == "all":
        # It landed although the client got an error: the only honest error here is
        # one that leaves the outcome open (a retry may help), never a flat "no".
        assert REGISTRY[body["code"]].retry != "no", body["code"]


def test_a_write_of_unknown_outcome_keeps_its_idempotency_key(tmp_path: Path) -> None:
    """The connection dropped after the create was sent: a retry must not write twice."""
    data_dir = tmp_path / "kanban"
    data_dir.mkdir()
    key = {"idempotency-key": "maybe-landed"}
    with start_kanban(fault="die-mid-write", fault_on="writes", data_dir=data_dir) as upstream:
        port = int(upstream.url.rsplit(":", 1)[1])
        with start_runtime(KANBAN_DRF, upstream, grants=GRANTS) as rt:
            first = httpx.post(f"{rt.url}/api/collections/cards/records", json={"title": "Maybe"},
                               headers={**FULL, **key}, timeout=30)  # fmt: skip
            body = first.json()
            assert (first.status_code, body["code"], body["outcomeUnknown"]) == (
                502, "upstream_unavailable", True
            )  # fmt: skip
            upstream.wait_exit()
            with start_kanban(data_dir=data_dir, port=port) as again:
                retry = httpx.post(
                    f"{rt.url}/api/collections/cards/records",
                    json={"title": "Maybe"},
                    headers={**FULL, **key},
                    timeout=30,
                )
                assert (retry.status_code, retry.json()["code"]) == (409, "duplicate_request")
                found = httpx.get(f"{again.api}/cards/?title=Maybe", headers=again.headers).json()
                assert found["count"] == 1
