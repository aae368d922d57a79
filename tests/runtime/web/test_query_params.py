"""Every protocol route takes only its own query parameters; anything else is refused."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, RuntimeServer, start_runtime
from tests.fixtures.servers import start_kanban

TOKEN = "a2app_query_params_token"
AUTH = {"x-a2app-token": TOKEN}


@pytest.fixture(scope="module")
def runtime() -> Iterator[RuntimeServer]:
    grants = (GrantSpec("cred_q", "q", ("*",), TOKEN),)
    with start_kanban() as upstream, start_runtime(KANBAN_DRF, upstream, grants=grants) as rt:
        yield rt


@dataclass(frozen=True)
class Query:
    name: str
    method: str
    path: str
    status: int
    code: str | None = None
    got: tuple[str, ...] = ()


CARDS = "/api/collections/cards/records"
QUERIES = [
    Query("list, known", "GET", f"{CARDS}?filter=done%3Dtrue&sort=-due&perPage=2&page=1", 200),
    Query("list, mis-cased filter", "GET", f"{CARDS}?Filter=done%3Dtrue", 400, "invalid_query",
          ("Filter",)),
    Query("list, perpage", "GET", f"{CARDS}?perpage=2", 400, "invalid_query", ("perpage",)),
    Query("list, fields undeclared", "GET", f"{CARDS}?fields=colour", 400, "invalid_filter"),
    Query("list, fields declared", "GET", f"{CARDS}?fields=id,title", 200),
    Query("one record, expand", "GET", f"{CARDS}/card_seed?expand=list", 200),
    Query("one record, stray", "GET", f"{CARDS}/card_seed?x=1", 400, "invalid_query", ("x",)),
    Query("identity", "GET", "/api/_a2app?viewer=tab1", 200),
    Query("identity, stray", "GET", "/api/_a2app?debug=1", 400, "invalid_query", ("debug",)),
    Query("describe", "GET", "/api/_a2app/describe?all=true", 200),
    Query("describe, stray", "GET", "/api/_a2app/describe?level=1", 400, "invalid_query"),
    Query("whoami takes none", "GET", "/api/_a2app/whoami?x=1", 400, "invalid_query", ("x",)),
    Query("ops take none", "POST", "/api/ops/count-finished?x=1", 400, "invalid_query"),
    Query("receipts", "GET", "/api/_a2app/receipts?since=0", 200),
    Query("a write takes fields only", "POST", f"{CARDS}?expand=list", 400, "invalid_query"),
    Query("a 20 kB filter", "GET", f"{CARDS}?filter=" + "a" * 20_000, 400, "invalid_filter"),
]  # fmt: skip


@pytest.mark.parametrize("case", QUERIES, ids=lambda q: q.name)
def test_query_parameters(runtime: RuntimeServer, case: Query) -> None:
    body = {"title": "x"} if case.method == "POST" else None
    response = httpx.request(
        case.method, runtime.url + case.path, json=body, headers=AUTH, timeout=30
    )
    assert response.status_code == case.status, response.text
    if case.code is None:
        return
    answer = response.json()
    assert (answer["a2app"], answer["ok"], answer["code"]) == (True, False, case.code)
    if case.got:
        assert answer["got"] == list(case.got)
        assert isinstance(answer["allowed"], list)


def test_get_one_expands_and_trims(runtime: RuntimeServer) -> None:
    url = f"{runtime.url}{CARDS}/card_seed?expand=list&fields=id,list,expand"
    record = httpx.get(url, headers=AUTH, timeout=30).json()
    assert set(record) == {"id", "list", "expand"}
    assert record["expand"]["list"]["id"] == record["list"]


def test_over_long_headers_are_refused_in_the_envelope(runtime: RuntimeServer) -> None:
    response = httpx.get(
        runtime.url + "/api/_a2app", headers={"x-padding": "p" * 70_000}, timeout=30
    )
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


def raw_get(url: str, target: str) -> tuple[int, bytes]:
    """A request line longer than an HTTP client library will send."""
    import socket

    host, port = url.rsplit("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_an_over_long_request_line_is_refused_in_the_envelope(runtime: RuntimeServer) -> None:
    import json

    status, body = raw_get(runtime.url, f"{CARDS}?filter=" + "a" * 100_000)
    assert status == 400
    assert json.loads(body)["code"] == "invalid_query"
