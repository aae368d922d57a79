"""One `Idempotency-Key`, many simultaneous requests: the upstream gets one record.

Twenty threads send the same keyed create at the same moment, to one runtime process
or spread over two processes that share one PostgreSQL store (ARCHITECTURE §4: the
store, not process memory, makes idempotency hold across processes). Exactly one
request writes; every other gets 409 `duplicate_request`; the sample API, read
directly, holds exactly one record; a replay after completion names that record.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.databases import database
from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_idem_token"
HEADERS = {"x-a2app-token": TOKEN}
GRANTS = (GrantSpec("cred_idem", "racer", ("*",), TOKEN),)
REQUESTS = 20
CREATE = "/api/collections/cards/records"


@dataclass(frozen=True)
class Topology:
    name: str
    store: str  # "sqlite" or "postgresql"
    processes: int


TOPOLOGIES = [
    Topology("one process, sqlite store", "sqlite", 1),
    Topology("one process, postgresql store", "postgresql", 1),
    Topology("two processes, one postgresql store", "postgresql", 2),
]


def params(cases: list[Topology]) -> list[Any]:
    return [
        pytest.param(c, id=c.name, marks=[pytest.mark.postgres] if c.store == "postgresql" else [])
        for c in cases
    ]


def post(runtime: RuntimeServer, body: dict[str, Any], key: str) -> httpx.Response:
    headers = {**HEADERS, "idempotency-key": key}
    return httpx.post(runtime.url + CREATE, json=body, headers=headers, timeout=60)


def cards_titled(upstream: KanbanServer, title: str) -> list[dict[str, Any]]:
    response = httpx.get(
        f"{upstream.api}/cards/",
        params={"title": title, "page_size": 1000},
        headers=upstream.headers,
        timeout=30,
    )
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


@pytest.mark.parametrize("case", params(TOPOLOGIES))
def test_simultaneous_keyed_creates_write_once(case: Topology, tmp_path: Path) -> None:
    title = f"Raced by {case.processes} process(es) on {case.store}"
    key = f"race-{case.store}-{case.processes}"
    body = {"title": title}
    with contextlib.ExitStack() as stack:
        upstream = stack.enter_context(start_kanban())
        store_url = stack.enter_context(database(case.store, tmp_path))
        # grants are written once, by the first start, into the store all processes share
        grants = [GRANTS, *[()] * (case.processes - 1)]
        runtimes = [
            stack.enter_context(start_runtime(KANBAN_DRF, upstream, store_url=store_url, grants=g))
            for g in grants
        ]
        assert len({rt.url for rt in runtimes}) == case.processes

        start = threading.Barrier(REQUESTS)

        def send(i: int) -> httpx.Response:
            runtime = runtimes[i % len(runtimes)]
            start.wait(timeout=30)
            return post(runtime, body, key)

        with concurrent.futures.ThreadPoolExecutor(REQUESTS) as pool:
            responses = list(pool.map(send, range(REQUESTS)))

        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200] + [409] * (REQUESTS - 1), [r.text for r in responses]
        created = next(r.json() for r in responses if r.status_code == 200)
        assert created["title"] == title and created["id"]
        for refused in (r.json() for r in responses if r.status_code == 409):
            assert refused["code"] == "duplicate_request", refused
            # a request that lost while the winner was still writing cannot name a
            # record yet; one that lost after it finished must name the winner's
            assert refused.get("id", created["id"]) == created["id"], refused

        stored = cards_titled(upstream, title)
        assert [c["id"] for c in stored] == [created["id"]]

        for runtime in runtimes:
            replay = post(runtime, {"title": "a different body"}, key)
            assert replay.status_code == 409, replay.text
            assert (replay.json()["code"], replay.json()["id"]) == (
                "duplicate_request",
                created["id"],
            )
        assert cards_titled(upstream, title) == stored
        assert cards_titled(upstream, "a different body") == []
