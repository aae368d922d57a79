"""The prober's transport: only GET, HEAD and OPTIONS, only under the base URL."""

from __future__ import annotations

import httpx
import pytest

from mapper.probe import SAFE_METHODS, ReadOnlyTransport, RefusedRequest
from mapper.probe.live._http import ProbeClient, classify
from runtime.upstream import BaseUrl

from ..fakes import BASE, Fake, json_response

WRITES = ["POST", "PUT", "PATCH", "DELETE", "TRACE", "CONNECT", "post"]


def _transport(fake: Fake, headers: dict[str, str] | None = None) -> ReadOnlyTransport:
    return ReadOnlyTransport(fake.transport, BaseUrl(BASE + "/api"), headers or {})


@pytest.mark.parametrize("method", WRITES)
def test_every_other_method_is_refused_before_the_network(method: str) -> None:
    fake = Fake(lambda request: json_response({}))
    with httpx.Client(transport=_transport(fake)) as client, pytest.raises(RefusedRequest):
        client.request(method, BASE + "/api/cards/")
    assert fake.log == []


@pytest.mark.parametrize("method", sorted(SAFE_METHODS))
def test_safe_methods_pass_with_credentials_on_the_wire_only(method: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return json_response({})

    fake = Fake(handler)
    transport = _transport(fake, {"Authorization": "Token s3cret-value"})
    with httpx.Client(transport=transport) as client:
        response = client.request(method, BASE + "/api/cards/")
    assert seen[0].headers["authorization"] == "Token s3cret-value"
    assert "authorization" not in response.request.headers


@pytest.mark.parametrize(
    "url",
    [
        "http://elsewhere.test/api/cards/",
        "https://upstream.test/api/cards/",
        "http://upstream.test:8080/api/cards/",
        "http://upstream.test/other/",
        "http://upstream.test/api/%2e%2e/admin/",
    ],
)
def test_urls_outside_the_base_are_refused(url: str) -> None:
    fake = Fake(lambda request: json_response({}))
    with httpx.Client(transport=_transport(fake)) as client, pytest.raises(RefusedRequest):
        client.get(url)
    assert fake.log == []


def test_a_redirect_elsewhere_is_not_followed_and_carries_no_credentials() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": "http://elsewhere.test/steal"})

    fake = Fake(handler)
    client = ProbeClient(BASE, {"Authorization": "Token s3cret-value"}, transport=fake.transport)
    answer = client.get("/api/cards/")
    assert answer.failure == "outside-upstream"
    assert fake.log == [("GET", "/api/cards/")]


def test_links_outside_the_upstream_resolve_to_nothing() -> None:
    client = ProbeClient(BASE + "/api", {}, transport=Fake(lambda r: json_response({})).transport)
    assert client.resolve("http://elsewhere.test/x") is None
    assert client.resolve("/api/cards/?page=2") == httpx.URL(BASE + "/api/cards/?page=2")
    assert client.relative(httpx.URL(BASE + "/api/cards/")) == "/cards/"


def test_anonymous_requests_carry_no_credentials() -> None:
    seen: list[httpx.Request] = []
    fake = Fake(lambda request: seen.append(request) or json_response({}, 401))  # type: ignore[func-returns-value]
    client = ProbeClient(BASE, {"Authorization": "Token s3cret"}, transport=fake.transport)
    assert client.get("/api/", anonymous=True).status == 401
    assert "authorization" not in seen[0].headers


@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        ("application/json", b'{"a": 1}', "json"),
        ("application/vnd.api+json", b'{"data": []}', "json"),
        ("text/html; charset=utf-8", b"<html></html>", "html"),
        ("application/json", b"<!DOCTYPE html><html>", "html"),
        ("application/pdf", b"%PDF-1.4", "binary"),
        ("image/png", b"\x89PNG", "binary"),
        ("text/plain", b"hello", "text"),
        ("application/json", b"{broken", "text"),
        ("application/json", b"", "empty"),
    ],
)
def test_answers_are_classified(content_type: str, body: bytes, kind: str) -> None:
    response = httpx.Response(200, content=body, headers={"content-type": content_type})
    assert classify(response)[0] == kind


@pytest.mark.parametrize(
    ("exc", "code", "failure"),
    [
        (httpx.ConnectError("refused"), "upstream_unavailable", "unavailable"),
        (httpx.ReadTimeout("slow"), "upstream_timeout", "timeout"),
        (httpx.TooManyRedirects("loop"), "upstream_error", "failed"),
    ],
)
def test_a_failed_exchange_is_an_answer_translated_as_the_runtime_does(
    exc: httpx.HTTPError, code: str, failure: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    client = ProbeClient(BASE, {}, transport=httpx.MockTransport(handler))
    answer = client.get("/api/")
    assert (answer.status, answer.failure) == (0, failure)
    assert answer.error is not None and answer.error.code == code
