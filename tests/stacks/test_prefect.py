"""Prefect 3.9.1's server (`samples/prefect_server`): listings made by POST, end to end.

Prefect is a real FastAPI application whose collections are listed RPC-style, by
``POST /api/<things>/filter {offset, limit, ...}``; no collection answers a GET
listing. One server runs for the module (seed `rich`: 45 variables, 12 flows, 3 work
pools, and the block types and schemas Prefect registers itself).

The probe is given the root URL alone: Prefect answers 404 at its root, and publishes
at ``/openapi.json`` a spec of its API without the ``servers: [/api]`` that its own at
``/api/openapi.json`` carries; the first's routes answer 404 where it lies, so the
probe passes it over for the second. It maps each listing from the spec without
sending it (read-only).
The verifier proves the listings read-only (the probe's mapping without Prefect's 116
operations, whose path parameters name records by name or tag the verifier cannot
make up); the runtime serves that copy through the gate, and every page it walks is
compared with Prefect's own answers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.fixtures.runtime import start_runtime
from tests.fixtures.stacks import StackServer, start_prefect

from .support import AGENT, GRANTS, MISSING, dig, lint, probe_twice, verify_copy

NAME = "prefect.probed.yaml"
# Prefect refuses a limit above 200 (PREFECT_SERVER_API_DEFAULT_LIMIT).
PREFECT_LIMIT = 200


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_prefect(seed="rich") as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"PREFECT_URL": server.url}


@pytest.fixture(scope="module")
def probed(server: StackServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return probe_twice(tmp_path_factory, NAME, [server.url, "--app-id", "prefect"], {})


@pytest.fixture(scope="module")
def entities_only(probed: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The probed mapping without its operations (see the module's docstring)."""
    doc = yaml.safe_load(probed[0].read_text())
    doc.pop("operations", None)
    used = {e["module"] for e in doc["entities"].values()}
    doc["modules"] = [m for m in doc["modules"] if m["name"] in used]
    path = tmp_path_factory.mktemp("entities") / NAME
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def verified(
    server: StackServer, entities_only: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    copy, done, report = verify_copy(
        entities_only, tmp_path_factory.mktemp("verify"), env_of(server), "--read-only"
    )
    # Collections the seed leaves empty have no stored value to judge by reads alone:
    # partly verified (exit 1), stamped for what reads proved, nothing disproved.
    assert done.returncode == 1 and report["outcome"] == "partly-verified", done.stdout
    assert report["summary"]["failed"] == 0 and report["stamp"], done.stdout
    return copy, report


@pytest.fixture(scope="module")
def runtime_url(server: StackServer, verified: tuple[Path, dict[str, Any]]) -> Iterator[str]:
    copy, _ = verified
    with start_runtime(copy, server, grants=GRANTS, env=env_of(server), verified=True) as rt:
        yield rt.url


def prefect_ids(server: StackServer, things: str) -> list[str]:
    """Every id of a collection as Prefect itself lists it: its own POST filter, walked."""
    ids: list[str] = []
    while True:
        body = {"offset": len(ids), "limit": PREFECT_LIMIT}
        answer = httpx.post(f"{server.url}/api/{things}/filter", json=body, timeout=30)
        assert answer.status_code == 200, answer.text
        page = [str(r["id"]) for r in answer.json()]
        ids += page
        if len(page) < PREFECT_LIMIT:
            return ids


def served_ids(runtime_url: str, entity: str, per_page: int) -> list[str]:
    """Every id the runtime serves, walked page by page as an agent would."""
    ids: list[str] = []
    page = 1
    while True:
        answer = httpx.get(
            f"{runtime_url}/api/collections/{entity}/records",
            params={"page": page, "perPage": per_page},
            headers=AGENT,
            timeout=60,
        )
        assert answer.status_code == 200, answer.text
        doc = answer.json()
        ids += [item["id"] for item in doc["items"]]
        if page >= doc["totalPages"] or not doc["items"]:
            return ids
        page += 1


# --------------------------------------------------------------------------- probe


def test_probing_twice_gives_the_same_bytes(probed: list[Path]) -> None:
    first, second = (p.read_bytes() for p in probed)
    assert first == second


def test_the_spec_is_found_from_the_root_url(probed: list[Path]) -> None:
    notes = yaml.safe_load(probed[0].read_text())["probe"]["notes"]
    assert (
        "spec: /openapi.json: its GET /health answered 404 here: not this API's "
        "description" in notes
    )
    assert "spec: /api/openapi.json (a well-known path; nothing linked one)" in notes


def test_the_probed_mapping_lints(probed: list[Path]) -> None:
    result = lint(probed[0])
    assert result.exit_code == 0, result.output


LISTED_BY_POST = [
    "artifacts", "automations", "block_documents", "block_schemas", "block_types",
    "concurrency_limits", "deployments", "flow_runs", "flows", "saved_searches", "task_runs",
    "v2_concurrency_limits", "variables", "work_pools", "work_queues",
]  # fmt: skip
OFFSET_IN_THE_BODY = {"style": "offset", "size": "limit", "offset": "offset", "items": ""}

INFERRED: list[tuple[str, Any]] = [
    ("upstream.pagination", {"style": "none", "items": ""}),
    ("entities.variables.path", "/api/variables/"),
    ("entities.variables.detailPath", "/api/variables/{id}"),
    ("entities.variables.list.method", "POST"),
    ("entities.variables.list.path", "/api/variables/filter"),
    ("entities.variables.list.pagination", OFFSET_IN_THE_BODY),
    ("entities.flows.list.path", "/api/flows/filter"),
    ("entities.v2_concurrency_limits.list.path", "/api/v2/concurrency_limits/filter"),
    # Its create carries the name: the client chooses it.
    ("entities.work_pools.id", {"source": "name", "type": "string", "client": True}),
    ("entities.work_pools.detailPath", "/api/work_pools/{id}"),
    # Not in VariableCreate, which refuses undeclared properties: managed by Prefect.
    ("entities.variables.fields.created.readOnly", True),
    ("entities.variables.fields.name.readOnly", MISSING),
    ("entities.variables.fields.name.required", True),
]  # fmt: skip


@pytest.mark.parametrize(("where", "expected"), INFERRED, ids=[w for w, _ in INFERRED])
def test_what_the_probe_infers(probed: list[Path], where: str, expected: Any) -> None:
    assert dig(yaml.safe_load(probed[0].read_text()), where) == expected


def test_every_collection_is_listed_by_post_with_its_evidence(probed: list[Path]) -> None:
    doc = yaml.safe_load(probed[0].read_text())
    assert sorted(doc["entities"]) == LISTED_BY_POST
    for name, entity in doc["entities"].items():
        listing = entity["list"]
        assert (listing["method"], listing["pagination"]) == ("POST", OFFSET_IN_THE_BODY), name
        (evidence,) = listing["evidence"]
        assert evidence["source"] == "openapi"
        assert evidence["detail"].startswith(f"POST {listing['path']} answers a list of records")
        assert "not sent by the probe" in evidence["detail"]
        # The filter route is the listing, not an operation.
        paths = {op["request"]["path"] for op in doc.get("operations", [])}
        assert listing["path"] not in paths


def test_the_probe_sent_no_post(
    server: StackServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Prefect's variables are as seeded after probing: no listing was sent, no write."""
    before = prefect_ids(server, "variables")
    probe_twice(tmp_path_factory, NAME, [server.url, "--openapi",
                f"{server.url}/api/openapi.json", "--app-id", "prefect"], {})  # fmt: skip
    assert prefect_ids(server, "variables") == before and len(before) == 45


# --------------------------------------------------------------------------- verify


POSTED = {"variables": 45, "flows": 12, "work_pools": 3}


def test_the_verifier_proves_every_listing_by_post(verified: tuple[Path, dict[str, Any]]) -> None:
    _, report = verified
    # partly verified: the empty collections' stored types cannot be judged by reads
    assert report["outcome"] == "partly-verified" and report["summary"]["failed"] == 0
    checks = {c["claim"]: c for c in report["checks"]}
    for name in LISTED_BY_POST:
        assert checks[f"entities.{name}.list"]["outcome"] == "passed", name
        assert checks[f"entities.{name}.get"]["outcome"] == "passed", name
    for name, count in POSTED.items():
        posted = checks[f"entities.{name}.list.posted"]
        assert posted["outcome"] == "passed"
        assert posted["note"].startswith(f"{count} records listed by POST")
    # Prefect registers its own block types and schemas: listed, then read back by id.
    assert checks["entities.block_types.list.posted"]["outcome"] == "passed"
    # An empty listing has nothing to read back: said, not counted as proven.
    assert checks["entities.artifacts.list.posted"]["outcome"] == "unproven"


# --------------------------------------------------------------------------- serve


WALKS = [("variables", "variables", 7), ("flows", "flows", 5), ("block_types", "block_types", 10),
         ("block_schemas", "block_schemas", 25), ("work_pools", "work_pools", 2)]  # fmt: skip


@pytest.mark.parametrize(("entity", "things", "per_page"), WALKS, ids=[w[0] for w in WALKS])
def test_every_page_through_the_runtime_is_prefects_own_listing(
    server: StackServer, runtime_url: str, entity: str, things: str, per_page: int
) -> None:
    served = served_ids(runtime_url, entity, per_page)
    own = prefect_ids(server, things)
    if entity == "work_pools":  # addressed by name, as its detail route reads them
        own = [p["name"] for p in httpx.post(f"{server.url}/api/work_pools/filter",
                                             json={}, timeout=30).json()]  # fmt: skip
    assert not [i for i, n in Counter(served).items() if n > 1]
    assert sorted(served) == sorted(own) and served
    if entity == "work_pools":
        assert sorted(served) == ["pool-00", "pool-01", "pool-02"]


def test_a_record_reads_as_prefect_stores_it(server: StackServer, runtime_url: str) -> None:
    (first,) = httpx.post(f"{server.url}/api/variables/filter", json={"limit": 1}).json()
    answer = httpx.get(
        f"{runtime_url}/api/collections/variables/records/{first['id']}", headers=AGENT
    )
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert {k: got[k] for k in ("id", "name", "value", "tags")} == {
        k: first[k] for k in ("id", "name", "value", "tags")
    }


def test_writes_wait_for_a_verification_of_writes(server: StackServer, runtime_url: str) -> None:
    """The stamp proves reads only: a create is refused and nothing reaches Prefect."""
    before = prefect_ids(server, "variables")
    answer = httpx.post(
        f"{runtime_url}/api/collections/variables/records",
        json={"name": "refused_write", "value": "x"},
        headers=AGENT,
    )
    assert answer.status_code >= 400 and answer.json()["code"] == "writes_not_verified"
    assert prefect_ids(server, "variables") == before
