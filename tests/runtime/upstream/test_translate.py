"""Every way the upstream can fail becomes one protocol code, raised from the cause."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest

from runtime.protocol import ProtocolError
from runtime.upstream import retry_after

from .support import CARDS, SECRET, client, reply

pytestmark = pytest.mark.anyio


def raising(exc: type[Exception]) -> Any:
    def answer(request: httpx.Request) -> httpx.Response:
        raise exc("boom", request=request)  # type: ignore[call-arg]

    return answer


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (httpx.ConnectError, "upstream_unavailable"),  # refused, DNS, TLS handshake
        (httpx.ReadError, "upstream_unavailable"),  # connection reset mid-answer
        (httpx.WriteError, "upstream_unavailable"),
        (httpx.RemoteProtocolError, "upstream_unavailable"),  # dropped before answering
        (httpx.ProxyError, "upstream_unavailable"),
        (httpx.ConnectTimeout, "upstream_timeout"),
        (httpx.ReadTimeout, "upstream_timeout"),
        (httpx.PoolTimeout, "upstream_timeout"),
        (httpx.DecodingError, "upstream_error"),
        (httpx.TooManyRedirects, "upstream_error"),
    ],
)
async def test_transport_failures_translate(exc: type[Exception], code: str) -> None:
    upstream, _ = client(raising(exc))
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/")
    assert info.value.code == code
    assert isinstance(info.value.__cause__, exc)
    assert "GET /v1/api/cards/" in info.value.message


async def test_deadline_bounds_the_whole_exchange() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(5)
        return httpx.Response(200, json={})

    upstream, _ = client(slow, timeout_seconds=0.05)
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/")
    assert info.value.code == "upstream_timeout"
    assert info.value.status == 504


@dataclass
class Case:
    name: str
    status: int
    code: str | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    in_message: str | None = None


ANSWERS = [
    Case("ok", 200, None, {"json": {"a": 1}}),
    Case("no content", 204, None),
    Case("server error page", 500, "upstream_error",
         {"text": "<html><title>Server Error (500)</title><p>oops</p></html>",
          "headers": {"content-type": "text/html"}}, in_message="HTTP 500 (text/html)"),
    Case("bad gateway", 502, "upstream_error", {"text": "bad gateway"}, in_message="HTTP 502"),
    Case("html instead of json", 200, "upstream_error",
         {"text": "<!doctype html><h1>Please sign in</h1>",
          "headers": {"content-type": "text/html; charset=utf-8"}},
         in_message="HTML page"),
    Case("not json", 200, "upstream_error", {"text": "hello there"}, in_message="not JSON"),
    Case("unauthorized", 401, "upstream_auth_failed", {"json": {"detail": "Invalid token."}}),
    Case("forbidden", 403, "upstream_auth_failed", {"json": {"detail": "nope"}}),
    Case("not found elsewhere", 404, "upstream_error", {"json": {"detail": "Not found."}}),
    Case("method not allowed", 405, "upstream_error", {"json": {"detail": "no"}}),
    Case("redirect left over", 304, "upstream_error"),
    Case("rate limited", 429, "upstream_rate_limited", {"headers": {"Retry-After": "7"}},
         {"retryAfterSeconds": 7}),
    Case("rate limited, no header", 429, "upstream_rate_limited", {}, {"retryAfterSeconds": 1}),
    Case("validation", 400, "upstream_rejected", {"json": {"title": ["This field is required."]}},
         {"field": "title", "violations": [{"code": "upstream_rejected", "field": "title",
                                            "expected": "This field is required."}]}),
    Case("conflict", 409, "upstream_rejected", {"json": {"detail": "Already exists."}},
         {"field": None}),
    Case("unprocessable, html", 422, "upstream_rejected", {"text": "<p>bad</p>"}),
]  # fmt: skip


@pytest.mark.parametrize("case", ANSWERS, ids=lambda c: c.name)
async def test_answers_translate(case: Case) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(case.status, **case.kwargs)

    upstream, _ = client(answer)
    if case.code is None:
        result = await upstream.call("GET", "/api/cards/", entity=CARDS)
        assert result == case.kwargs.get("json")
        return
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/", entity=CARDS)
    error = info.value
    assert error.code == case.code
    for key, value in case.extras.items():
        assert error.extra[key] == value
    if case.in_message:
        assert case.in_message in error.message
    assert len(error.message) < 400


async def test_auth_failure_message_has_no_excerpt() -> None:
    upstream, _ = client(reply(401, text=f"Invalid token {SECRET} for user admin"))
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/")
    assert "admin" not in info.value.message
    assert "Invalid" not in info.value.message


async def test_a_server_error_page_is_told_by_status_and_type_alone() -> None:
    """An error page may echo anything, in encodings no redaction foresees: none of it
    reaches the message, only its status, media type, method and path."""
    page = f"<html><body><h1>Crash</h1><pre>Authorization: Token {SECRET}</pre>{'x' * 5000}"
    upstream, _ = client(reply(500, text=page, headers={"content-type": "text/html; q=Crash"}))
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/")
    message = info.value.message
    assert message == "The upstream app answered HTTP 500 (text/html) to GET /v1/api/cards/."


async def test_record_read_404_is_none_not_an_error() -> None:
    upstream, _ = client(reply(404, {"detail": "Not found."}))
    assert await upstream.get_record(CARDS, "missing") is None
    assert await upstream.update_record(CARDS, "missing", {"title": "x"}) is None
    assert await upstream.delete_record(CARDS, "missing") is None


NOW = dt.datetime(2026, 8, 1, 12, 0, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, 1),
        ("", 1),
        ("7", 7),
        (" 120 ", 120),
        ("0", 0),
        ("Sat, 01 Aug 2026 12:00:30 GMT", 30),
        ("Sat, 01 Aug 2026 11:00:00 GMT", 0),  # already past
        ("soon", 1),
        ("-5", 1),
    ],
)
def test_retry_after(header: str | None, seconds: int) -> None:
    assert retry_after(header, now=NOW) == seconds
