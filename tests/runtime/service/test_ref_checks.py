"""Refs left to the upstream where a stamp proves it refuses a missing record itself.

The Django sample's mapping claims `upstreamChecksRef: true` on `cards.list` and
`cards.tags`, and on the `card` param of the `finish-card` operation; `a2map verify`
proves it through a recording proxy, and the runtime is served through the gate.
What reaches the upstream, in order, is read off the proxy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from runtime.mapping import load_stamp, stamp_path
from tests.fixtures.faultproxy import HANG, SLOW, Fault, FaultProxy
from tests.fixtures.runtime import KANBAN_DRF, REPO, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import start_kanban

TOKEN = "a2app_ref_checks_token"
AGENT = {"x-a2app-token": TOKEN, "x-a2app-agent": "test-agent"}
GRANTS = (GrantSpec("cred_refs", "writer", ("*",), TOKEN),)
CARDS = "/api/collections/cards/records"
CLAIMED = ("list", "tags")
OPERATION, PARAM = "finish-card", "card"


@dataclass
class Served:
    runtime: RuntimeServer
    proxy: FaultProxy
    mapping: Path

    def write(self, method: str, path: str, body: Any) -> httpx.Response:
        self.proxy.forget()
        return httpx.request(method, self.runtime.url + path, json=body, headers=AGENT, timeout=30)

    def reached(self) -> list[str]:
        """The upstream requests the last write made, in order, as `METHOD /path`."""
        return [f"{s.method} {s.path}" for s in self.proxy.requests]


def _claiming(directory: Path) -> Path:
    doc = yaml.safe_load(KANBAN_DRF.read_text())
    for name in CLAIMED:
        doc["entities"]["cards"]["fields"][name]["upstreamChecksRef"] = True
    (op,) = (op for op in doc["operations"] if op["name"] == OPERATION)
    op["params"][PARAM]["upstreamChecksRef"] = True
    mapping = directory / "kanban-refs.yaml"
    mapping.write_text(yaml.safe_dump(doc, sort_keys=False))
    return mapping


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Served]]:
    """The claiming mapping served verified, and the same file served unverified."""
    verified = _claiming(tmp_path_factory.mktemp("refs-verified"))
    unverified = _claiming(tmp_path_factory.mktemp("refs-unverified"))
    with start_kanban() as sample, FaultProxy(sample) as proxy:
        env = {**os.environ, "KANBAN_URL": proxy.url, "KANBAN_TOKEN": proxy.token or ""}
        done = subprocess.run(
            [sys.executable, "-m", "mapper", "verify", str(verified)],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        with (
            start_runtime(verified, proxy, grants=GRANTS, verified=True) as one,
            start_runtime(unverified, proxy, grants=GRANTS) as other,
        ):
            yield Served(one, proxy, verified), Served(other, proxy, unverified)


def test_verify_proves_the_claim_on_each_ref(both: tuple[Served, Served]) -> None:
    stamp = load_stamp(stamp_path(both[0].mapping))
    for name in CLAIMED:
        assert stamp.ref_check_proven("cards", name)
    assert stamp.passed(f"operations.{OPERATION}.params.{PARAM}.upstreamChecksRef")


def test_a_write_naming_an_existing_record_goes_straight_to_the_upstream(
    both: tuple[Served, Served],
) -> None:
    served = both[0]
    served.proxy.forget()
    served.proxy.set(Fault(HANG, method="GET", path="/api/lists/list_doing/"))
    try:
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(
                httpx.post, served.runtime.url + CARDS, headers=AGENT, timeout=30,
                json={"title": "Ref left upstream", "list": "list_doing"},
            )  # fmt: skip
            # The write reaches the upstream while the read of its list still hangs.
            assert _reaches(served, "POST /api/cards/"), served.reached()
            served.proxy.clear()
            answer = pending.result()
    finally:
        served.proxy.clear()
    assert answer.status_code == 200, answer.text
    # The list is read for the receipt's label (once more after the hung read was cut).
    assert "GET /api/lists/list_doing/" in served.reached()
    assert "Doing" in answer.headers["x-a2app-receipt"]


def test_the_receipts_label_is_read_while_the_write_is_under_way(
    both: tuple[Served, Served],
) -> None:
    served = both[0]
    served.proxy.forget()
    # The write is held at the proxy long past what the runtime needs to read a list.
    served.proxy.set(Fault(SLOW, method="POST", path="/api/cards/", seconds=5))
    try:
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(
                httpx.post, served.runtime.url + CARDS, headers=AGENT, timeout=30,
                json={"title": "Label alongside", "list": "list_doing"},
            )  # fmt: skip
            label = "GET /api/lists/list_doing/"
            assert _reaches(served, label), served.reached()
            # Read while the write was held: before the record is read back after it.
            assert not any(r.startswith("GET /api/cards/") for r in served.reached())
            answer = pending.result()
    finally:
        served.proxy.clear()
    assert answer.status_code == 200, answer.text
    assert served.reached().count(label) == 1
    assert "Doing" in answer.headers["x-a2app-receipt"]


def _reaches(served: Served, request: str, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if request in served.reached():
            return True
        time.sleep(0.02)
    return False


def test_a_missing_record_is_refused_as_the_guard_refuses_it(
    both: tuple[Served, Served],
) -> None:
    served, checked = both
    body = {"title": "Ref left upstream 2", "list": "list_nope", "tags": ["tag_nope"]}
    left, before = served.write("POST", CARDS, body), served.reached()
    assert left.status_code == 400, left.text
    pre, after = checked.write("POST", CARDS, body), checked.reached()
    # The same answer, every violation at once, whoever found the missing records.
    assert left.json()["violations"] == pre.json()["violations"]
    assert {v["field"] for v in left.json()["violations"]} == {"list", "tags"}
    assert "POST /api/cards/" in before and "GET /api/lists/list_nope/" in before
    assert "POST /api/cards/" not in after  # served unverified, the file's claim is not taken


def test_another_violation_keeps_the_check_before_the_write(both: tuple[Served, Served]) -> None:
    served = both[0]
    answer = served.write("POST", CARDS, {"title": "x" * 201, "list": "list_nope"})
    assert answer.status_code == 400, answer.text
    codes = {(v["field"], v["code"]) for v in answer.json()["violations"]}
    assert codes == {("title", "invalid_string"), ("list", "invalid_ref")}
    assert "POST /api/cards/" not in served.reached()


def test_an_operation_naming_an_existing_record_is_called_straight_away(
    both: tuple[Served, Served],
) -> None:
    served = both[0]
    card = served.write("POST", CARDS, {"title": "Op ref left upstream"}).json()["id"]
    answer = served.write("POST", f"/api/ops/{OPERATION}", {PARAM: card})
    assert answer.status_code == 200, answer.text
    # The call first (no read of the card before it), then the card for the receipt.
    assert served.reached() == [f"POST /api/cards/{card}/finish/", f"GET /api/cards/{card}/"]
    assert answer.json()["result"]["done"] is True


def test_an_operation_naming_a_missing_record_is_refused_as_the_guard_refuses_it(
    both: tuple[Served, Served],
) -> None:
    served, checked = both
    left = served.write("POST", f"/api/ops/{OPERATION}", {PARAM: "card_nope"})
    before = served.reached()
    pre = checked.write("POST", f"/api/ops/{OPERATION}", {PARAM: "card_nope"})
    after = checked.reached()
    assert left.status_code == pre.status_code == 400, (left.text, pre.text)
    assert left.json()["code"] == pre.json()["code"]
    assert left.json()["violations"] == pre.json()["violations"]
    assert [v["field"] for v in left.json()["violations"]] == [PARAM]
    # The upstream's 404 told of the missing card; unverified, the card is read first.
    assert before == ["POST /api/cards/card_nope/finish/", "GET /api/cards/card_nope/"]
    assert after == ["GET /api/cards/card_nope/"]
