"""Paging styles beyond the page/offset/cursor/link basics, as real upstreams spell them.

Each fake upstream below serves ids 1..count in one style: offsets with the total in a
header, ``Content-Range`` totals over plain parameters, HTTP range requests (RFC 9110
and the ``Range-Unit`` form), a next cursor or next URL in a response header, a
``next_cursor`` in the body, a page number in ``X-Next-Page``, and a listing made by
``POST`` with its paging in a JSON body. The same walk and slice checks run over all.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import httpx
import pytest

from runtime.mapping import Entity, ListSpec, Pagination
from runtime.protocol import ProtocolError

from .listing import Listing
from .support import BASE, CARDS, client

pytestmark = pytest.mark.anyio

STYLES: dict[str, Pagination] = {
    "offset-total-header": Pagination(style="offset", offset="offset", size="limit",
                                      total_header="X-Total-Count", max_size=50),
    "content-range-params": Pagination(style="offset", offset="offset", size="limit",
                                       total_header="Content-Range", max_size=50),
    "range": Pagination(style="range", max_size=50),
    "range-unit-header": Pagination(style="range", unit="items", unit_header="Range-Unit",
                                    max_size=50),
    "cursor-token-header": Pagination(style="cursor", cursor="cursor", size="limit",
                                      next_header="X-Next-Cursor", max_size=50),
    "next-url-header": Pagination(style="cursor", cursor="after", size="limit",
                                  next_header="X-Next-Page", max_size=50),
    "cursor-body": Pagination(style="cursor", cursor="cursor", size="limit", items=("data",),
                              next=("next_cursor",), max_size=50),
    "page-next-header": Pagination(style="page", page="page", size="per_page",
                                   next_header="X-Next-Page", total_header="X-Total",
                                   max_size=50),
    "post-offset": Pagination(style="offset", offset="offset", size="limit", max_size=50),
}  # fmt: skip
# Styles whose answers carry the whole listing's count.
COUNTED = {
    "offset-total-header", "content-range-params", "range", "range-unit-header",
    "page-next-header",
}  # fmt: skip
POSTED = dataclasses.replace(CARDS, listing=ListSpec(method="POST", path="/api/cards/filter"))


def token(position: int) -> str:
    """An opaque cursor, with the characters real ones carry ("/", "=", "+")."""
    return f"c/{position:04d}+=="


def position_of(cursor: str | None) -> int:
    return int(cursor[2:6]) if cursor else 0


class Upstream(Listing):
    """`count` records with ids 1..count, served in one of the newer styles; `cap` bounds
    a page."""

    def __call__(self, request: httpx.Request) -> httpx.Response:
        q, n, style = request.url.params, len(self.records), self.style
        if style == "offset-total-header":
            items = self._slice(int(q.get("offset", "0")), int(q.get("limit", "10")))
            return httpx.Response(200, json=items, headers={"X-Total-Count": str(n)})
        if style == "content-range-params":
            start = int(q.get("offset", "0"))
            items = self._slice(start, int(q.get("limit", "10")))
            shown = f"{start}-{start + len(items) - 1}" if items else "*"
            return httpx.Response(200, json=items, headers={"Content-Range": f"{shown}/{n}"})
        if style.startswith("range"):
            return self._range(request)
        if style in ("cursor-token-header", "next-url-header", "cursor-body"):
            start = position_of(q.get("cursor") or q.get("after"))
            items = self._slice(start, int(q.get("limit", "10")))
            end = start + len(items)
            following = token(end) if end < n else None
            if style == "cursor-body":
                return httpx.Response(200, json={"data": items, "next_cursor": following})
            headers = {}
            if following and style == "cursor-token-header":
                headers["X-Next-Cursor"] = following
            elif following:
                headers["X-Next-Page"] = str(request.url.copy_merge_params({"after": following}))
            return httpx.Response(200, json=items, headers=headers)
        if style == "page-next-header":
            size, page = min(int(q.get("per_page", "10")), self.cap), int(q.get("page", "1"))
            more = page * size < n
            headers = {"X-Next-Page": str(page + 1) if more else "", "X-Total": str(n)}
            return httpx.Response(200, json=self._slice((page - 1) * size, size), headers=headers)
        if style == "post-offset":
            if request.method != "POST" or not request.url.path.endswith("/filter"):
                return httpx.Response(405, json={"detail": "Method Not Allowed"})
            body = json.loads(request.content or b"{}")
            if not all(isinstance(body.get(k, 0), int) for k in ("offset", "limit")):
                return httpx.Response(422, json={"detail": "offset and limit are integers"})
            return httpx.Response(200, json=self._slice(body.get("offset", 0), body["limit"]))
        raise AssertionError(style)

    def _range(self, request: httpx.Request) -> httpx.Response:
        n = len(self.records)
        asked = request.headers.get("Range", "")
        if self.style == "range-unit-header":
            assert request.headers.get("Range-Unit") == "items"
            found = re.fullmatch(r"(\d+)-(\d+)", asked)
        else:
            found = re.fullmatch(r"items=(\d+)-(\d+)", asked)
        if found is None:
            return httpx.Response(200, json=self.records, headers={"Content-Range": f"0-{n}/{n}"})
        start, last = int(found.group(1)), int(found.group(2))
        if start >= n and n:
            return httpx.Response(416, headers={"Content-Range": f"*/{n}"})
        items = self._slice(start, last - start + 1)
        shown = f"{start}-{start + len(items) - 1}" if items else "*"
        unit = "" if self.style == "range-unit-header" else "items "
        return httpx.Response(206, json=items, headers={"Content-Range": f"{unit}{shown}/{n}"})


def listing(style: str, count: int, **kwargs: Any) -> tuple[Any, Any, Entity]:
    upstream, seen = client(Upstream(style, count, **kwargs), pagination=STYLES[style])
    return upstream, seen, POSTED if style == "post-offset" else CARDS


def ids(records: list[dict[str, Any]]) -> list[int]:
    return [int(r["id"]) for r in records]


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("count", [0, 1, 49, 50, 51, 137])
async def test_scan_walks_every_record_once(style: str, count: int) -> None:
    upstream, seen, entity = listing(style, count)
    scan = upstream.scan(entity, {"done": "true"}, limit=1000)
    assert ids(await scan.collect()) == list(range(1, count + 1))
    assert scan.truncated is False
    assert all(r.url.params.get("done") == "true" for r in seen.requests)
    if style in COUNTED:
        assert scan.total == count


PAGES = [(1, 10), (2, 10), (5, 30), (14, 10), (15, 10), (1, 137), (2, 70), (3, 60), (1, 1)]


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize(("page", "per_page"), PAGES)
async def test_list_page_is_the_slice(style: str, page: int, per_page: int) -> None:
    count = 137
    upstream, _, entity = listing(style, count)
    result = await upstream.list_page(entity, {}, page=page, per_page=per_page)
    start = (page - 1) * per_page
    assert ids(result.records) == list(range(start + 1, min(start + per_page, count) + 1))
    assert result.has_more is (start + per_page < count)
    if style in COUNTED:
        assert result.total == count


async def test_a_post_listing_sends_its_paging_as_json_numbers() -> None:
    upstream, seen, entity = listing("post-offset", 30)
    page = await upstream.list_page(entity, {}, page=2, per_page=10)
    assert ids(page.records) == list(range(11, 21))
    sent = seen.requests[0]
    assert (sent.method, sent.url.path) == ("POST", "/v1/api/cards/filter")
    assert json.loads(sent.content) == {"limit": 10, "offset": 10}


RANGES = [("range", {"range": "items=0-9"}),
          ("range-unit-header", {"range": "0-9", "range-unit": "items"})]  # fmt: skip


@pytest.mark.parametrize(("style", "expected"), RANGES)
async def test_range_requests_name_the_unit_as_the_mapping_says(
    style: str, expected: dict[str, str]
) -> None:
    upstream, seen, entity = listing(style, 30)
    await upstream.list_page(entity, {}, page=1, per_page=10)
    sent = seen.requests[0].headers
    assert {k: sent[k] for k in expected} == expected


async def test_a_range_past_the_end_is_an_empty_page_with_the_total() -> None:
    upstream, _, entity = listing("range", 30)
    page = await upstream.list_page(entity, {}, page=9, per_page=10)
    assert (page.records, page.total, page.has_more) == ([], 30, False)


async def test_a_next_url_header_is_followed_within_the_base_only() -> None:
    def outside(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[{"id": 1}], headers={"X-Next-Page": "http://elsewhere/x"})

    upstream, seen = client(outside, pagination=STYLES["next-url-header"])
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=100).collect()
    assert info.value.code == "upstream_error" and "outside" in info.value.message
    assert [str(r.url).startswith(BASE) for r in seen.requests] == [True]


async def test_a_header_cursor_that_never_moves_is_refused() -> None:
    def stuck(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("cursor", "0"))
        return httpx.Response(200, json=[{"id": page}], headers={"X-Next-Cursor": "7"})

    upstream, _ = client(stuck, pagination=STYLES["cursor-token-header"])
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=100).collect()
    assert "repeats itself" in info.value.message


async def test_a_server_ignoring_range_is_refused_not_repeated() -> None:
    def whole(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[{"id": i} for i in range(1, 21)])

    upstream, _ = client(whole, pagination=STYLES["range"])
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=100).collect()
    assert "repeats itself" in info.value.message


@pytest.mark.parametrize(
    ("value", "total"),
    [("items 0-24/319", 319), ("0-24/319", 319), ("*/319", 319), ("items 0-24/*", None),
     ("319", 319), ("", None), ("items 0-24", None)],
)  # fmt: skip
async def test_content_range_totals(value: str, total: int | None) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        first = request.url.params.get("offset") == "0"
        return httpx.Response(
            200, json=[{"id": 1}] if first else [], headers={"Content-Range": value}
        )

    upstream, _ = client(answer, pagination=STYLES["content-range-params"])
    page = await upstream.list_page(CARDS, {}, page=1, per_page=1)
    assert page.total == total
