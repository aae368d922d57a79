"""Refs left to the upstream where a stamp proves it refuses a missing record itself.

The Django sample's mapping claims `upstreamChecksRef: true` on `cards.list` and
`cards.tags`; `a2map verify` proves it through a recording proxy, and the runtime is
served through the gate. What reaches the upstream, in order, is read off the proxy.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from runtime.mapping import load_stamp, stamp_path
from tests.fixtures.faultproxy import FaultProxy
from tests.fixtures.runtime import KANBAN_DRF, REPO, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import start_kanban

TOKEN = "a2app_ref_checks_token"
AGENT = {"x-a2app-token": TOKEN, "x-a2app-agent": "test-agent"}
GRANTS = (GrantSpec("cred_refs", "writer", ("*",), TOKEN),)
CARDS = "/api/collections/cards/records"
CLAIMED = ("list", "tags")


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


def test_a_write_naming_an_existing_record_goes_straight_to_the_upstream(
    both: tuple[Served, Served],
) -> None:
    served = both[0]
    answer = served.write("POST", CARDS, {"title": "Ref left upstream", "list": "list_doing"})
    assert answer.status_code == 200, answer.text
    reached = served.reached()
    assert reached[0] == "POST /api/cards/", reached  # no read of the list before it
    assert "GET /api/lists/list_doing/" in reached  # the receipt's label, read alongside
    assert "Doing" in answer.headers["x-a2app-receipt"]


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
    assert before[0] == "POST /api/cards/" and "GET /api/lists/list_nope/" in before[1:]
    assert "POST /api/cards/" not in after  # served unverified, the file's claim is not taken


def test_another_violation_keeps_the_check_before_the_write(both: tuple[Served, Served]) -> None:
    served = both[0]
    answer = served.write("POST", CARDS, {"title": "x" * 201, "list": "list_nope"})
    assert answer.status_code == 400, answer.text
    codes = {(v["field"], v["code"]) for v in answer.json()["violations"]}
    assert codes == {("title", "invalid_string"), ("list", "invalid_ref")}
    assert "POST /api/cards/" not in served.reached()
