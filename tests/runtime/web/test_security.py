"""Every security refusal, over real HTTP, with the runtime in front of the real sample."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from runtime.store import Store
from tests.fixtures.runtime import (
    CONFORMANCE,
    CONFORMANCE_GRANTS,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import start_kanban

FULL = {"x-a2app-token": "a2app_conformance_full"}
RO = {"x-a2app-token": "a2app_conformance_readonly"}
CARDS = "/api/collections/cards/records"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RuntimeServer]:
    directory = tmp_path_factory.mktemp("security")
    mapping = mapping_variant(
        CONFORMANCE,
        directory,
        serve__allowedOrigins=["http://app.example:3000"],
        serve__allowedHosts=["a2app.example.com"],
    )
    with (
        start_kanban() as upstream,
        start_runtime(mapping, upstream, grants=CONFORMANCE_GRANTS) as rt,
    ):
        yield rt


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    status: int
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    extra: tuple[str, ...] = ()


CASES = [
    Case(
        "foreign host on identity",
        "GET",
        "/api/_a2app",
        403,
        "forbidden_host",
        {"host": "evil.example.com"},
    ),
    Case(
        "foreign host with port",
        "GET",
        "/api/_a2app",
        403,
        "forbidden_host",
        {"host": "evil.example.com:80"},
    ),
    Case(
        "loopback look-alike host",
        "GET",
        "/api/_a2app",
        403,
        "forbidden_host",
        {"host": "localhost.evil.example.com"},
    ),
    Case("configured host", "GET", "/api/_a2app", 200, None, {"host": "a2app.example.com"}),
    Case("allowed origin's host", "GET", "/api/_a2app", 200, None, {"host": "app.example:3000"}),
    Case(
        "foreign origin on a read",
        "GET",
        CARDS,
        403,
        "forbidden_origin",
        {"origin": "https://evil.example", **FULL},
    ),
    Case(
        "null origin on whoami",
        "GET",
        "/api/_a2app/whoami",
        403,
        "forbidden_origin",
        {"origin": "null"},
    ),
    Case(
        "foreign origin before the guard",
        "POST",
        CARDS,
        403,
        "forbidden_origin",
        {"origin": "https://evil.example", **FULL},
        b'{"bogus":1}',
    ),
    Case(
        "identity never refuses an origin",
        "GET",
        "/api/_a2app",
        200,
        None,
        {"origin": "https://evil.example"},
    ),
    Case(
        "describe root never refuses an origin",
        "GET",
        "/api/_a2app/describe",
        200,
        None,
        {"origin": "https://evil.example"},
    ),
    Case(
        "allowed origin is the app's own UI",
        "GET",
        "/api/_a2app/whoami",
        200,
        None,
        {"origin": "http://app.example:3000"},
    ),
    Case(
        "write without a token",
        "POST",
        CARDS,
        401,
        "agent_token_required",
        {},
        b'{"title":"x"}',
        ("how",),
    ),
    Case(
        "unknown token is no token",
        "POST",
        CARDS,
        401,
        "agent_token_required",
        {"x-a2app-token": "nope"},
        b"{}",
        ("how",),
    ),
    Case(
        "read-only grant writing",
        "POST",
        CARDS,
        403,
        "insufficient_scope",
        RO,
        b'{"title":"x"}',
        ("required",),
    ),
    Case(
        "read-only grant on an unread entity",
        "GET",
        "/api/_a2app/describe/board/cards/card_seed",
        200,
        None,
        RO,
    ),
    Case(
        "legacy token header",
        "GET",
        "/api/_a2app/whoami",
        200,
        None,
        {"x-lui-token": "a2app_conformance_readonly"},
    ),
    Case(
        "body over 5 MiB",
        "POST",
        CARDS,
        413,
        "payload_too_large",
        FULL,
        b"x" * (5 * 1024 * 1024 + 1),
        ("limitBytes",),
    ),
    Case("unknown protocol path", "GET", "/api/_a2app/nope", 404, "not_found"),
    Case("unknown collection", "GET", "/api/collections/nope/records", 404, "unknown_entity"),
    Case("malformed collection path", "GET", "/api/collections/cards/things", 404, "not_found"),
    Case("unknown path anywhere", "GET", "/admin/", 404, "not_found"),
    Case("records verb not allowed", "PUT", f"{CARDS}/card_seed", 405, "usage", FULL, b"{}"),
    Case("describe too deep", "GET", "/api/_a2app/describe/a/b/c/d/e", 404, "usage"),
    Case("empty describe segment", "GET", "/api/_a2app/describe/board//cards", 404, "usage"),
    Case("empty find", "GET", "/api/_a2app/describe?find=", 400, "usage"),
    Case("unknown record", "GET", f"{CARDS}/nope", 404, "record_not_found", FULL),
    Case(
        "bad filter",
        "GET",
        f"{CARDS}?filter=title%3D%3D1",
        400,
        "invalid_filter",
        FULL,
        None,
        ("got",),
    ),
    Case(
        "filter on an undeclared field",
        "GET",
        f"{CARDS}?filter=bogus%3D1",
        400,
        "invalid_filter",
        FULL,
    ),
    Case("trailing slash matches", "GET", "/api/_a2app/whoami/", 200, None, RO),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refusal(runtime: RuntimeServer, case: Case) -> None:
    headers = {"content-type": "application/json", **case.headers}
    response = httpx.request(
        case.method, runtime.url + case.path, headers=headers, content=case.body, timeout=30
    )
    assert response.status_code == case.status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    if case.code is not None:
        assert body["a2app"] is True and body["ok"] is False
        assert body["code"] == case.code
        assert isinstance(body["message"], str) and body["message"]
    for key in case.extra:
        assert body.get(key) not in (None, "")


def test_insufficient_scope_names_the_scope(runtime: RuntimeServer) -> None:
    body = httpx.post(runtime.url + CARDS, headers=RO, content=b'{"title":"x"}').json()
    assert body["required"] == "data:cards:write"


def test_revocation_is_effective_on_the_next_request(tmp_path: Path) -> None:
    with (
        start_kanban() as upstream,
        start_runtime(CONFORMANCE, upstream, grants=CONFORMANCE_GRANTS) as rt,
    ):
        who = httpx.get(rt.url + "/api/_a2app/whoami", headers=RO).json()
        assert who["credentialId"] == "cred_ro"
        store = Store.open(rt.store_url)
        try:
            assert store.revoke_grant("cred_ro")
        finally:
            store.close()
        refused = httpx.get(rt.url + "/api/_a2app/whoami", headers=RO)
        assert (refused.status_code, refused.json()["code"]) == (401, "agent_token_required")
        assert "not known here" in refused.json()["message"] and refused.json()["how"]
        # without a token the caller is anonymous again, as before
        who = httpx.get(rt.url + "/api/_a2app/whoami").json()
        assert who["credentialId"] == "anonymous"


def test_rate_limit_is_keyed_by_credential(tmp_path: Path) -> None:
    mapping = mapping_variant(CONFORMANCE, tmp_path, serve__rateLimits={"data": 3, "ops": 3})
    with (
        start_kanban() as upstream,
        start_runtime(mapping, upstream, grants=CONFORMANCE_GRANTS) as rt,
    ):
        with httpx.Client(base_url=rt.url) as client:
            statuses = [client.get(CARDS, headers=RO).status_code for _ in range(4)]
            assert statuses == [200, 200, 200, 429]
            refused = client.get(CARDS, headers=RO).json()
            assert refused["code"] == "rate_limited" and 1 <= refused["retryAfterSeconds"] <= 60
            # another credential has its own window; unmetered routes stay open
            assert client.get(CARDS, headers=FULL).status_code == 200
            assert client.get("/api/_a2app/whoami", headers=RO).status_code == 200
        assert "a2app_conformance_readonly" not in rt.stderr()


def test_local_grant_file_is_private_and_works(tmp_path: Path) -> None:
    with start_kanban() as upstream, start_runtime(CONFORMANCE, upstream) as rt:
        token_file = rt.state_dir / ".agent-token"
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        who = httpx.get(rt.url + "/api/_a2app/whoami", headers={"x-a2app-token": token}).json()
        assert who["credentialId"] == "cred_local" and "data:cards:write" in who["scopes"]
        assert token not in rt.stderr()
