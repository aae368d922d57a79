"""When a probe counts as refused (exit 2, the header named) rather than nothing mappable."""

from __future__ import annotations

import httpx
import pytest

from mapper.probe import AuthRefused, NothingMappable, ProbeError, ProbeOptions, probe

from ..fakes import BASE, Fake

PAGES = ("/boards", "/lists", "/cards", "/about")


def _site(refused: set[str]) -> Fake:
    """An HTML home page linking four pages; those in `refused` answer 401 with a Bearer
    challenge, the others answer HTML pages (no JSON anywhere)."""
    home = "".join(f'<a href="{p}">{p}</a>' for p in PAGES)

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/":
            return httpx.Response(200, html=f"<html><body>{home}</body></html>")
        if path in refused:
            return httpx.Response(401, json={"error": "unauthorized"},
                                  headers={"WWW-Authenticate": 'Bearer realm="api"'})  # fmt: skip
        if path in PAGES:
            return httpx.Response(200, html="<html><body><p>a page</p></body></html>")
        return httpx.Response(404, text="")

    return Fake(handle)


@pytest.mark.parametrize(
    ("refused", "error", "code"),
    [
        ({"/boards", "/lists", "/cards", "/about"}, AuthRefused, 2),
        ({"/boards", "/lists", "/cards"}, AuthRefused, 2),  # most links refused
        ({"/about"}, NothingMappable, 1),  # one admin-like page refused, the rest HTML
    ],
    ids=["every link", "most links", "one page"],
)
def test_a_site_refused_or_merely_unmappable(
    refused: set[str], error: type[ProbeError], code: int
) -> None:
    with pytest.raises(ProbeError) as info:
        probe(ProbeOptions(url=BASE, app_id="shop"), transport=_site(refused).transport)
    assert type(info.value) is error and info.value.exit_code == code
    if isinstance(info.value, AuthRefused):
        assert info.value.header == "Authorization: Bearer ${SHOP_TOKEN}"
    found = info.value
    assert isinstance(found, (AuthRefused, NothingMappable))
    refusals = [f.path for f in found.findings if f.code == "auth-refused"]
    assert sorted(refusals) == sorted(refused)
