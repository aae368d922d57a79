"""Upstream failures reach an agent as the codes of one registry, never as foreign bodies."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.fixtures.runtime import CONFORMANCE, CONFORMANCE_GRANTS, mapping_variant, start_runtime
from tests.fixtures.servers import start_kanban

FULL = {"x-a2app-token": "a2app_conformance_full"}


@dataclass(frozen=True)
class Fault:
    fault: str
    code: str
    status: int


FAULTS = [
    Fault("hang", "upstream_timeout", 504),
    Fault("error", "upstream_error", 502),
    Fault("html", "upstream_error", 502),
    Fault("ratelimit", "upstream_rate_limited", 429),
]
READS = ["/api/collections/cards/records", "/api/collections/cards/records/card_seed",
         "/api/_a2app/describe/board/cards/card_seed"]  # fmt: skip


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.fault)
def test_fault_becomes_its_code(fault: Fault, tmp_path: Path) -> None:
    mapping = mapping_variant(CONFORMANCE, tmp_path, upstream__timeoutSeconds=1)
    with (
        start_kanban(fault=fault.fault, fault_on="reads") as upstream,
        start_runtime(mapping, upstream, grants=CONFORMANCE_GRANTS) as rt,
    ):
        for path in READS:
            response = httpx.get(rt.url + path, headers=FULL, timeout=30)
            body = response.json()
            assert (response.status_code, body["code"]) == (fault.status, fault.code), body
            assert "<html" not in response.text.lower()
            assert upstream.token not in response.text
        if fault.code == "upstream_rate_limited":
            assert body["retryAfterSeconds"] == 7
        # what needs no upstream keeps answering
        assert httpx.get(rt.url + "/api/_a2app").status_code == 200


def test_stopped_upstream_is_unavailable() -> None:
    with (
        start_kanban() as upstream,
        start_runtime(CONFORMANCE, upstream, grants=CONFORMANCE_GRANTS) as rt,
    ):
        assert httpx.get(rt.url + READS[0], headers=FULL).status_code == 200
        upstream.stop()
        for path in READS:
            body = httpx.get(rt.url + path, headers=FULL, timeout=30).json()
            assert body["code"] == "upstream_unavailable"


def test_wrong_upstream_token_is_an_owner_problem() -> None:
    with (
        start_kanban() as upstream,
        start_runtime(
            CONFORMANCE, upstream, grants=CONFORMANCE_GRANTS, env={"KANBAN_TOKEN": "wrong"}
        ) as rt,
    ):
        response = httpx.get(rt.url + READS[0], headers=FULL)
        assert (response.status_code, response.json()["code"]) == (502, "upstream_auth_failed")
        assert "wrong" not in response.text
