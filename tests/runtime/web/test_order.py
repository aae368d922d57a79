"""The order every route keeps (protocol §4.3, §17, §18), which class A would not notice:

rate gate → unknown entity or operation (404) → authorise (Origin, credential, scope);
identity and the describe levels that only render are neither metered nor refused on
Origin; ids are split from the raw path and then decoded; trailing slashes are stripped
without a redirect; the framework's own 404 and 405 never reach a client.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    # This Starlette would rather drive its test client with httpx2; httpx does the same.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import pytest

from runtime.mapping import Entity, load_mapping_text
from runtime.service import RuntimeState
from runtime.store import Store
from runtime.upstream import UpstreamClient
from runtime.web import create_app, route_path

ROOT = Path(__file__).resolve().parents[3]
KANBAN_TEXT = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
TOKEN = "a2app_order_full"
LIMIT = 3  # data and ops requests a caller may make in a window
EVIL = "http://evil.example"


@dataclass
class Upstream:
    """Answers every read by id with "no such record", and remembers the ids asked for."""

    real: UpstreamClient
    asked: list[str] = field(default_factory=list)

    async def get_record(self, entity: Entity, record_id: str) -> dict[str, Any] | None:
        self.asked.append(record_id)
        return None

    async def aclose(self) -> None:
        await self.real.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@dataclass
class Served:
    client: TestClient
    upstream: Upstream


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setenv("KANBAN_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    text = KANBAN_TEXT.replace(
        "serve:\n", f"serve:\n  rateLimits: {{data: {LIMIT}, ops: {LIMIT}}}\n"
    )
    mapping = load_mapping_text(text)
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    store.create_grant(id="cred_full", agent_name="order", scopes=["*"], token=TOKEN)
    state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream))
    upstream = Upstream(state.upstream)
    state.upstream = upstream  # type: ignore[assignment]
    try:
        with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
            yield Served(client, upstream)
    finally:
        store.close()


def _code(answer: Any) -> tuple[int, str]:
    body = answer.json()
    assert body["a2app"] is True and body["ok"] is False, body
    return answer.status_code, body["code"]


# ------------------------------------------------------------ rate gate first


def test_an_over_limit_caller_is_refused_even_for_an_unknown_entity(served: Served) -> None:
    for _ in range(LIMIT):
        assert _code(served.client.get("/api/collections/nope/records")) == (404, "unknown_entity")
    assert _code(served.client.get("/api/collections/nope/records")) == (429, "rate_limited")


def test_an_over_limit_caller_is_refused_even_for_an_unknown_operation(served: Served) -> None:
    for _ in range(LIMIT):
        assert _code(served.client.post("/api/ops/nope", json={})) == (404, "unknown_operation")
    assert _code(served.client.post("/api/ops/nope", json={})) == (429, "rate_limited")


def test_an_over_limit_write_is_refused_before_its_authorisation(served: Served) -> None:
    for _ in range(LIMIT):
        served.client.post("/api/collections/cards/records", json={})
    assert _code(served.client.post("/api/collections/cards/records", json={})) == (
        429,
        "rate_limited",
    )


# ------------------------------------------------- lookup before authorisation


@pytest.mark.parametrize(
    ("method", "path", "code"),
    [
        ("POST", "/api/collections/nope/records", "unknown_entity"),
        ("PATCH", "/api/collections/nope/records/x", "unknown_entity"),
        ("DELETE", "/api/collections/nope/records/x", "unknown_entity"),
        ("PUT", "/api/collections/nope/records/x", "unknown_entity"),
        ("POST", "/api/ops/nope", "unknown_operation"),
        ("GET", "/api/ops/nope", "unknown_operation"),
    ],
)
def test_an_unknown_name_is_404_before_a_missing_token_is_401(
    served: Served, method: str, path: str, code: str
) -> None:
    assert _code(served.client.request(method, path)) == (404, code)


def test_a_known_name_without_a_token_is_401(served: Served) -> None:
    assert _code(served.client.post("/api/collections/cards/records", json={})) == (
        401,
        "agent_token_required",
    )
    assert _code(served.client.post("/api/ops/archive-board", json={})) == (
        401,
        "agent_token_required",
    )


def test_a_verb_records_do_not_take_is_authorised_before_it_is_refused(served: Served) -> None:
    path = "/api/collections/cards/records/x"
    assert _code(served.client.put(path, json={})) == (401, "agent_token_required")
    assert _code(served.client.put(path, json={}, headers={"X-A2App-Token": TOKEN})) == (
        405,
        "usage",
    )


def test_an_operation_called_with_get_is_405_after_its_lookup(served: Served) -> None:
    assert _code(served.client.get("/api/ops/archive-board")) == (405, "usage")


# ------------------------------------------------------ Origin inside authorise


@pytest.mark.parametrize(
    "path",
    [
        "/api/_a2app",
        "/.well-known/a2app.json",
        "/api/_a2app/describe",
        "/api/_a2app/describe?find=card",
        "/api/_a2app/describe/board",
        "/api/_a2app/describe/board/cards",
    ],
)
def test_identity_and_the_rendering_describe_levels_never_refuse_on_origin(
    served: Served, path: str
) -> None:
    answer = served.client.get(path, headers={"Origin": EVIL})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize(
    "path",
    ["/api/_a2app/whoami", "/api/collections/cards/records", "/api/_a2app/describe/board/cards/x"],
)
def test_a_route_that_authorises_refuses_a_foreign_origin(served: Served, path: str) -> None:
    assert _code(served.client.get(path, headers={"Origin": EVIL})) == (403, "forbidden_origin")


# ------------------------------------------------------------ what is metered


def test_identity_and_describe_are_not_metered(served: Served) -> None:
    paths = [
        "/api/_a2app",
        "/api/_a2app/describe",
        "/api/_a2app/describe?find=card",
        "/api/_a2app/describe/board",
        "/api/_a2app/describe/board/cards",
        "/api/_a2app/whoami",
    ]
    for _ in range(4 * LIMIT):
        for path in paths:
            assert served.client.get(path).status_code == 200, path
    # the data budget is whole: every data request of the window still gets through the gate
    for _ in range(LIMIT):
        assert _code(served.client.get("/api/collections/nope/records")) == (404, "unknown_entity")


def test_the_record_level_of_describe_is_metered_as_data(served: Served) -> None:
    for _ in range(LIMIT):
        answer = served.client.get("/api/_a2app/describe/board/cards/x")
        assert _code(answer) == (404, "record_not_found")
    assert _code(served.client.get("/api/_a2app/describe/board/cards/x")) == (429, "rate_limited")


# ----------------------------------------------------------------- the path


@pytest.mark.parametrize(
    ("raw", "routed"),
    [
        (b"/api/collections/cards/records/a%2Fb", "/api/collections/cards/records/a%2Fb"),
        (b"/api/collections/cards/records/a%252Fb", "/api/collections/cards/records/a%252Fb"),
        (b"/api/collections/cards/records/x//", "/api/collections/cards/records/x"),
        (b"/api/collections/cards/records/caf%C3%A9", "/api/collections/cards/records/caf\u00e9"),
        (b"/", "/"),
        (b"///", "/"),
    ],
)
def test_routes_match_segments_split_from_the_raw_path(raw: bytes, routed: str) -> None:
    scope = {"raw_path": raw, "path": "/decoded/already"}
    assert route_path(scope) == routed


@pytest.mark.parametrize(
    ("path", "record_id"),
    [
        ("/api/collections/cards/records/a%2Fb", "a/b"),
        ("/api/collections/cards/records/a%2Fb/", "a/b"),
        ("/api/collections/cards/records/a%252Fb", "a%2Fb"),
        ("/api/collections/cards/records/%2e%2e", ".."),
        ("/api/_a2app/describe/board/cards/a%2Fb", "a/b"),
    ],
)
def test_an_id_is_split_from_the_raw_path_then_decoded(
    served: Served, path: str, record_id: str
) -> None:
    answer = served.client.get(path, follow_redirects=False)
    assert _code(answer) == (404, "record_not_found")
    assert served.upstream.asked == [record_id]


@pytest.mark.parametrize(
    "path", ["/api/collections/cards/records/", "/api/_a2app/", "/api/_a2app/describe///"]
)
def test_trailing_slashes_are_stripped_without_a_redirect(served: Served, path: str) -> None:
    answer = served.client.get(path, follow_redirects=False)
    assert answer.status_code != 307 and "location" not in answer.headers
    assert answer.status_code in (200, 502), answer.text


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/nope", 404, "not_found"),
        ("GET", "/api/collections/cards/records/a/b", 404, "not_found"),
        ("GET", "/api/collections/cards/other", 404, "not_found"),
        ("GET", "/api/collections//records", 404, "not_found"),
        ("GET", "/api/_a2app/nope", 404, "not_found"),
        ("GET", "/api/_a2app/describe/a/b/c/d/e", 404, "usage"),
        ("TRACE", "/api/_a2app", 405, "usage"),
        ("POST", "/api/_ops", 405, "usage"),
        ("DELETE", "/api/_jobs/job_x", 405, "usage"),
    ],
)
def test_the_frameworks_own_404_and_405_never_reach_a_client(
    served: Served, method: str, path: str, status: int, code: str
) -> None:
    assert _code(served.client.request(method, path)) == (status, code)
