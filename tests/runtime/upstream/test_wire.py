"""Credentials are added on the wire only, and never show up in messages or logs."""

from __future__ import annotations

import base64
import logging

import httpx
import pytest

from runtime.mapping import Auth
from runtime.protocol import ProtocolError
from runtime.upstream import UpstreamClient

from .support import BASE, CARDS, PASSWORD, SECRET, Recorder, client, reply, upstream

pytestmark = pytest.mark.anyio

AUTHS = [
    ("header", Auth(type="header", name="X-Api-Key", value=SECRET), {"x-api-key": SECRET}, {}),
    ("bearer", Auth(type="bearer", name="Authorization", value=f"Bearer {SECRET}"),
     {"authorization": f"Bearer {SECRET}"}, {}),
    ("bearer bare", Auth(type="bearer", value=SECRET), {"authorization": f"Bearer {SECRET}"}, {}),
    ("basic", Auth(type="basic", username="admin", password=PASSWORD),
     {"authorization": "Basic " + base64.b64encode(f"admin:{PASSWORD}".encode()).decode()}, {}),
    ("query", Auth(type="query", name="api_key", value=SECRET), {}, {"api_key": SECRET}),
    ("none", Auth(type="none"), {}, {}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "auth", "headers", "query"), AUTHS, ids=[a[0] for a in AUTHS])
async def test_auth_injected(
    name: str, auth: Auth, headers: dict[str, str], query: dict[str, str]
) -> None:
    upstream, seen = client(reply(200, {}), auth=auth, headers={"X-Tenant": "acme"})
    await upstream.call("GET", "/api/cards/", params={"a": "1"})
    request = seen.requests[0]
    for key, value in headers.items():
        assert request.headers[key] == value
    assert dict(request.url.params) == {"a": "1", **query}
    assert request.headers["accept"] == "application/json"
    assert request.headers["x-tenant"] == "acme"
    if name == "none":
        assert "authorization" not in request.headers


async def test_query_key_is_set_once_even_when_a_next_link_echoes_it() -> None:
    echo = f"{BASE}/api/cards/?api_key={SECRET}&page=2"
    pages = {
        "1": {"count": 2, "next": echo, "results": [{"id": 1}]},
        "2": {"count": 2, "next": None, "results": [{"id": 2}]},
    }

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=pages[request.url.params.get("page", "1")])

    recorder = Recorder(answer)
    auth = Auth(type="query", name="api_key", value=SECRET)
    async with UpstreamClient(upstream(auth=auth), transport=recorder.transport) as api:
        records = await api.scan(CARDS, {}, limit=10).collect()
    assert [r["id"] for r in records] == ["1", "2"]
    assert all(r.url.params.get_list("api_key") == [SECRET] for r in recorder.requests)


async def test_the_client_side_request_never_holds_the_credentials() -> None:
    """httpx logs and exceptions see the client's request; only the wire copy is credentialed."""
    auth = Auth(type="query", name="api_key", value=SECRET)
    upstream, _ = client(reply(200, {}), auth=auth)
    response = await upstream._send("GET", upstream.base.join("/api/cards/"))
    assert SECRET not in str(response.request.url)
    assert "authorization" not in response.request.headers


def refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("All connection attempts failed", request=request)


SECRET_SCENARIOS = [
    ("refused", refused),
    ("auth", reply(401, text=f"bad token {SECRET}")),
    ("5xx echo", reply(500, text=f"Authorization: Token {SECRET}")),
    ("html echo", reply(200, text=f"<p>{SECRET}</p>", headers={"content-type": "text/html"})),
    ("validation echo", reply(400, {"token": [f"{SECRET} is not valid"]})),
    ("rate", reply(429, text=SECRET)),
]


@pytest.mark.parametrize(("name", "answer"), SECRET_SCENARIOS, ids=[s[0] for s in SECRET_SCENARIOS])
@pytest.mark.parametrize(
    "auth",
    [
        Auth(type="header", name="Authorization", value=f"Token {SECRET}"),
        Auth(type="query", name="api_key", value=SECRET),
        Auth(type="basic", username="admin", password=SECRET),
    ],
    ids=["header", "query", "basic"],
)
async def test_secrets_never_in_messages_or_logs(
    name: str, answer: object, auth: Auth, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    upstream, _ = client(answer, auth=auth)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/", params={"q": "x"})
    error = info.value
    texts = [str(error), repr(error), str(error.body()), caplog.text]
    texts += [str(error.__cause__ or ""), repr(upstream.upstream), repr(upstream._secrets)]
    for text in texts:
        assert SECRET not in text


def test_upstream_repr_hides_credentials() -> None:
    assert SECRET not in repr(upstream())


def test_a_credential_http_cannot_carry_is_refused_without_quoting_it() -> None:
    auth = Auth(type="header", name="Authorization", value=f"Token {SECRET}\n")
    with pytest.raises(ValueError) as info:
        UpstreamClient(upstream(auth=auth))
    assert SECRET not in str(info.value) and "Authorization" in str(info.value)
