"""Nothing outside the upstream's base URL is ever contacted."""

from __future__ import annotations

import httpx
import pytest

from runtime.protocol import ProtocolError
from runtime.upstream import BaseUrl

from .support import BASE, CARDS, SECRET, client, pagination, reply

pytestmark = pytest.mark.anyio

BASE_URL = BaseUrl("http://api.test:8000/v1")


@pytest.mark.parametrize(
    ("url", "inside"),
    [
        ("http://api.test:8000/v1", True),
        ("http://api.test:8000/v1/", True),
        ("http://api.test:8000/v1/api/cards/?page=2", True),
        ("http://API.test:8000/v1/x", True),
        ("http://api.test:8000/v10/x", False),  # a prefix of the text, not of the path
        ("http://api.test:8000/x", False),
        ("http://api.test:8000/v1/../admin", False),
        ("http://api.test:8000/v1/%2e%2e/admin", False),
        ("http://api.test:8000/v1/a/%2E%2E/%2e%2e/admin", False),
        ("https://api.test:8000/v1/x", False),
        ("http://api.test:8001/v1/x", False),
        ("http://api.test/v1/x", False),
        ("http://evil.test:8000/v1/x", False),
        ("http://api.test.evil.test:8000/v1/x", False),
        ("http://user@api.test:8000/v1/x", True),
    ],
)
def test_contains(url: str, inside: bool) -> None:
    assert BASE_URL.contains(httpx.URL(url)) is inside


def test_default_ports_compare_equal() -> None:
    assert BaseUrl("https://h.test").contains(httpx.URL("https://h.test:443/a"))
    assert BaseUrl("http://h.test:80/").contains(httpx.URL("http://h.test/a"))


def test_root_base_contains_every_path_on_the_host() -> None:
    assert BaseUrl("http://h.test").contains(httpx.URL("http://h.test/anything"))


def test_join_appends_to_the_base_path() -> None:
    assert str(BASE_URL.join("/api/cards/")) == "http://api.test:8000/v1/api/cards/"
    assert str(BASE_URL.join("api/cards/5/")) == "http://api.test:8000/v1/api/cards/5/"
    assert str(BASE_URL.join("/api/x/?a=1")) == "http://api.test:8000/v1/api/x/?a=1"


@pytest.mark.parametrize(
    ("path", "joined"),
    [
        ("/api/café/", "/v1/api/caf%C3%A9/"),
        ("/api/x/?q=né", "/v1/api/x/?q=n%C3%A9"),
        ("/api/a b/", "/v1/api/a%20b/"),
        ("/api/a%2Fb/", "/v1/api/a%2Fb/"),  # an escape already there is kept as is
    ],
)
def test_join_encodes_what_a_url_cannot_hold_raw(path: str, joined: str) -> None:
    assert str(BASE_URL.join(path)) == "http://api.test:8000" + joined


@pytest.mark.parametrize(
    "path", ["http://evil.test/x", "//evil.test/x", "/../admin", "/%2e%2e/admin", "/a/../../x"]
)
def test_join_refuses_escapes(path: str) -> None:
    for _ in range(2):  # a refused path is refused again, never kept as joined
        with pytest.raises(Exception, match="outside the upstream"):
            BASE_URL.join(path)


def test_joins_kept_stay_right_and_bounded() -> None:
    base = BaseUrl("http://api.test:8000/v1")
    paths = [f"/api/cards/{n}/" for n in range(1200)]
    for path in paths + paths[::-1]:
        assert str(base.join(path)) == "http://api.test:8000/v1" + path
    assert 0 < len(base._joined) <= 512


def test_follow_resolves_relative_links() -> None:
    here = httpx.URL("http://api.test:8000/v1/api/cards/?page=1")
    assert str(BASE_URL.follow("?page=2", here)) == "http://api.test:8000/v1/api/cards/?page=2"
    assert str(BASE_URL.follow("/v1/api/cards/?page=3", here)).endswith("/v1/api/cards/?page=3")
    with pytest.raises(Exception, match="outside"):
        BASE_URL.follow("/other/?page=2", here)


def test_base_url_must_be_absolute_http() -> None:
    with pytest.raises(ValueError):
        BaseUrl("ftp://h.test/")
    with pytest.raises(ValueError):
        BaseUrl("/relative")


@pytest.mark.parametrize(
    "link",
    [
        "http://evil.test/v1/api/cards/?page=2",
        "https://api.test/v1/api/cards/?page=2",
        "http://api.test:9999/v1/api/cards/?page=2",
        "http://api.test/elsewhere/?page=2",
        "/elsewhere/?page=2",
    ],
)
async def test_next_link_outside_is_refused_not_followed(link: str) -> None:
    upstream, seen = client(reply(200, {"count": 9, "next": link, "results": [{"id": 1}]}))
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=100).collect()
    assert info.value.code == "upstream_error"
    assert "link outside the upstream was refused" in info.value.message
    assert len(seen.requests) == 1


async def test_link_header_outside_is_refused() -> None:
    headers = {"Link": '<http://evil.test/v1/api/cards/?_page=2>; rel="next"'}
    upstream, seen = client(
        reply(200, [{"id": 1}], headers=headers),
        pagination=pagination(style="link", items=(), total=None, next=None),
    )
    with pytest.raises(ProtocolError, match="link outside the upstream was refused"):
        await upstream.scan(CARDS, {}, limit=100).collect()
    assert len(seen.requests) == 1


async def test_redirect_outside_is_refused_and_credentials_stay_home() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host == "evil.test":
            raise AssertionError("contacted a host outside the upstream")
        return httpx.Response(302, headers={"Location": "http://evil.test/steal"})

    upstream, seen = client(answer)
    with pytest.raises(ProtocolError) as info:
        await upstream.call("GET", "/api/cards/")
    assert info.value.code == "upstream_error"
    assert "outside the upstream" in info.value.message
    assert [r.url.host for r in seen.requests] == ["api.test"]
    assert SECRET not in info.value.message


async def test_redirect_inside_is_followed() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/api/cards":
            return httpx.Response(301, headers={"Location": f"{BASE}/api/cards/"})
        return httpx.Response(200, json={"ok": True})

    upstream, seen = client(answer)
    assert await upstream.call("GET", "/api/cards") == {"ok": True}
    assert seen.requests[-1].headers["authorization"] == f"Token {SECRET}"


async def test_operation_path_cannot_escape() -> None:
    upstream, seen = client(reply(200, {}))
    with pytest.raises(ProtocolError, match="outside the upstream"):
        await upstream.call("POST", "/api/cards/%2e%2e/%2e%2e/admin/")
    assert seen.requests == []
