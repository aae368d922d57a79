"""Each pagination style: a protocol page, a bounded scan, and the guards of the walk."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from runtime.mapping import Pagination
from runtime.protocol import ProtocolError

from .listing import STYLES, Listing
from .support import BASE, CARDS, client, pagination, reply

pytestmark = pytest.mark.anyio


def ids(records: list[dict[str, Any]]) -> list[int]:
    return [int(r["id"]) for r in records]


def listing_client(style: str, count: int, **kwargs: Any) -> tuple[Any, Any]:
    return client(Listing(style, count, **kwargs), pagination=STYLES[style])


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("count", [0, 1, 49, 50, 51, 137])
async def test_scan_walks_every_record_once(style: str, count: int) -> None:
    upstream, seen = listing_client(style, count)
    scan = upstream.scan(CARDS, {"done": "true"}, limit=1000)
    records = await scan.collect()
    assert ids(records) == list(range(1, count + 1))
    assert scan.truncated is False
    assert scan.count == count
    assert all(r.url.params.get("done") == "true" for r in seen.requests)
    if style in ("page", "offset", "link"):
        assert scan.total == count


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize(("count", "limit", "truncated"), [(30, 10, True), (30, 30, False),
                                                           (120, 100, True), (0, 0, False),
                                                           (1, 0, True)])  # fmt: skip
async def test_scan_reports_when_the_bound_cut_it_short(
    style: str, count: int, limit: int, truncated: bool
) -> None:
    upstream, _ = listing_client(style, count)
    scan = upstream.scan(CARDS, {}, limit=limit)
    records = await scan.collect()
    assert ids(records) == list(range(1, min(count, limit) + 1))
    assert scan.truncated is truncated


async def test_scan_asks_for_the_largest_page_the_mapping_allows() -> None:
    upstream, seen = listing_client("page", 137)
    await upstream.scan(CARDS, {}, limit=1000).collect()
    assert [r.url.params["page_size"] for r in seen.requests] == ["50", "50", "50"]
    upstream, seen = listing_client("page", 137)
    await upstream.scan(CARDS, {}, limit=5).collect()
    assert [r.url.params["page_size"] for r in seen.requests] == ["6"]


PAGES = [(1, 10), (2, 10), (5, 30), (14, 10), (15, 10), (1, 137), (2, 70), (3, 60), (1, 1)]


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize(("page", "per_page"), PAGES)
async def test_list_page_is_the_slice(style: str, page: int, per_page: int) -> None:
    count = 137
    upstream, _ = listing_client(style, count)
    result = await upstream.list_page(CARDS, {}, page=page, per_page=per_page)
    start = (page - 1) * per_page
    assert ids(result.records) == list(range(start + 1, min(start + per_page, count) + 1))
    assert result.has_more is (start + per_page < count)
    # Without a count from the upstream, the total is known once the end was seen:
    # walked styles pass it on the way to a later page, addressed ones only on it.
    saw_the_end = start < count <= start + per_page or (style == "cursor" and start >= count)
    known = style in ("page", "offset", "link", "none") or saw_the_end
    assert result.total == (count if known else None)


@pytest.mark.parametrize("style", ["page", "offset", "link"])
async def test_addressable_styles_ask_for_exactly_that_page(style: str) -> None:
    upstream, seen = listing_client(style, 137)
    result = await upstream.list_page(CARDS, {}, page=3, per_page=20)
    assert ids(result.records) == list(range(41, 61))
    assert len(seen.requests) == 1


async def test_page_beyond_the_end_is_empty_with_the_total() -> None:
    upstream, _ = listing_client("page", 30)
    result = await upstream.list_page(CARDS, {}, page=9, per_page=10)
    assert (result.records, result.total, result.has_more) == ([], 30, False)


async def test_guessed_more_is_confirmed_before_saying_so() -> None:
    upstream, _ = listing_client("page-bare", 20)
    result = await upstream.list_page(CARDS, {}, page=2, per_page=10)
    assert ids(result.records) == list(range(11, 21)) and result.has_more is False
    result = await upstream.list_page(CARDS, {}, page=1, per_page=10)
    assert result.has_more is True


async def test_upstream_capping_below_max_size_is_named() -> None:
    upstream, _ = listing_client("page", 137, cap=20)
    with pytest.raises(ProtocolError, match="maxSize") as info:
        await upstream.list_page(CARDS, {}, page=1, per_page=40)
    assert info.value.code == "upstream_error"
    scan = upstream.scan(CARDS, {}, limit=1000)  # walking by next links stays right
    assert ids(await scan.collect()) == list(range(1, 138))


def same_page(next_link: str | None) -> Any:
    body = {"count": 99, "next": next_link, "results": [{"id": 1}, {"id": 2}]}
    return reply(200, body)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (same_page(f"{BASE}/api/cards/?page=1&page_size=50"), "next link it had sent before"),
        (same_page(f"{BASE}/api/cards/?page=2"), "page of records it had already sent"),
        (reply(200, {"count": 9, "next": f"{BASE}/x/?p=2", "results": []}), "empty page"),
    ],
    ids=["same link", "same records", "empty but more"],
)
async def test_an_upstream_repeating_itself_is_refused(answer: Any, why: str) -> None:
    upstream, seen = client(answer)
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=10_000).collect()
    assert info.value.code == "upstream_error"
    assert why in info.value.message
    assert len(seen.requests) <= 3


async def test_cursor_that_never_moves_is_refused() -> None:
    answer = reply(200, {"data": [{"id": 1}], "meta": {"next": "c1"}})
    upstream, seen = client(answer, pagination=STYLES["cursor"])
    with pytest.raises(ProtocolError, match="repeats itself"):
        await upstream.scan(CARDS, {}, limit=10_000).collect()
    assert len(seen.requests) == 2


async def test_page_ignoring_the_page_parameter_is_refused() -> None:
    answer = reply(200, [{"id": 1}, {"id": 2}])
    upstream, _ = client(answer, pagination=STYLES["page-bare"])
    with pytest.raises(ProtocolError, match="already sent"):
        await upstream.scan(CARDS, {}, limit=10_000).collect()


@pytest.mark.parametrize(
    ("style", "body", "what"),
    [
        ("page", {"count": 1, "next": None}, "an object without 'results'"),
        ("page", [{"id": 1}], "a list where an object holding 'results' was expected"),
        ("page", {"results": {"id": 1}}, "a dict as 'results', where a list of records"),
        ("page", {"results": None}, "null as 'results'"),
        ("page", {"results": [1, 2]}, "'results' holding something other than records"),
        ("none", {"results": []}, "a dict as the answer, where a list of records"),
        ("none", None, "null as the answer"),
        ("none", [{"title": "no id"}], "without a usable id"),
    ],
)
async def test_wrong_shapes_are_upstream_errors(style: str, body: Any, what: str) -> None:
    upstream, _ = client(reply(200, body), pagination=STYLES[style])
    with pytest.raises(ProtocolError) as info:
        await upstream.list_page(CARDS, {}, page=1, per_page=10)
    assert info.value.code == "upstream_error"
    assert what in info.value.message


async def test_missing_listing_is_an_upstream_error() -> None:
    upstream, _ = client(reply(404, {"detail": "Not found."}))
    with pytest.raises(ProtocolError, match="no listing"):
        await upstream.list_page(CARDS, {}, page=1, per_page=10)
    with pytest.raises(ProtocolError, match="no listing"):
        await upstream.scan(CARDS, {}, limit=10).collect()


async def test_relative_next_links_are_followed_within_the_base() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "2":
            return httpx.Response(200, json={"count": 2, "next": None, "results": [{"id": 2}]})
        body = {"count": 2, "next": "?page=2", "results": [{"id": 1}]}
        return httpx.Response(200, json=body)

    upstream, seen = client(answer)
    assert ids(await upstream.scan(CARDS, {}, limit=10).collect()) == [1, 2]
    assert seen.urls[-1] == f"{BASE}/api/cards/?page=2"


async def test_scan_can_stop_early_and_close() -> None:
    upstream, seen = listing_client("page", 137)
    scan = upstream.scan(CARDS, {}, limit=1000)
    first = await scan.__anext__()
    await scan.aclose()
    assert first["id"] == "1" and len(seen.requests) == 1


async def test_list_page_validates_its_arguments() -> None:
    upstream, _ = listing_client("page", 3)
    with pytest.raises(ValueError):
        await upstream.list_page(CARDS, {}, page=0, per_page=10)


async def test_first_page_zero() -> None:
    style = pagination(first_page=0, next=None)

    def answer(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        items = [{"id": i} for i in range(page * 2 + 1, page * 2 + 3) if i <= 5]
        return httpx.Response(200, json={"count": 5, "results": items})

    upstream, seen = client(answer, pagination=style)
    result = await upstream.list_page(CARDS, {}, page=2, per_page=2)
    assert ids(result.records) == [3, 4] and seen.urls[0].endswith("page=1")
    assert ids(await upstream.scan(CARDS, {}, limit=10).collect()) == [1, 2, 3, 4, 5]


class Faulty(Listing):
    """A page-style listing of 43 records that fails in one of the ways real ones do."""

    def __init__(self, fault: str) -> None:
        super().__init__("page", 43)
        self.fault = fault
        self.served = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        answer = super().__call__(request)
        self.served += 1
        if self.fault == "next-404" and page == 3:
            return httpx.Response(404, json={"detail": "Invalid page."})
        body = answer.json()
        if self.fault == "short-page" and page == 2:
            body["results"] = body["results"][1:]  # one record missing, the count kept
        if self.fault == "short-last" and page == 3:
            body["results"] = body["results"][1:]
        if self.fault == "count-moves" and page == 2:
            body["count"] = 60
        if self.fault == "ends-early" and page == 1:
            body["next"] = None
        return httpx.Response(answer.status_code, json=body)


COMPLETENESS = [
    ("next-404", "a page it said follows answered 404"),
    ("short-page", "it sent 42 of the 43 it counts"),
    ("count-moves", "its count moved from 43 to 60"),
    ("ends-early", "of the 43 it counts"),
]


@pytest.mark.parametrize(("fault", "said"), COMPLETENESS, ids=[c[0] for c in COMPLETENESS])
async def test_a_listing_that_cannot_be_read_to_its_end_is_refused(fault: str, said: str) -> None:
    pages = STYLES["page"]
    small = Pagination(**{**{f: getattr(pages, f) for f in pages.__slots__}, "max_size": 20})
    upstream, _ = client(Faulty(fault), pagination=small)
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=10_000).collect()
    assert info.value.code == "upstream_error"
    assert said in info.value.message and "could not be read to its end" in info.value.message


async def test_an_addressed_page_shorter_than_the_count_says_is_refused() -> None:
    pages = STYLES["page"]
    small = Pagination(**{**{f: getattr(pages, f) for f in pages.__slots__}, "max_size": 20})
    upstream, _ = client(Faulty("short-last"), pagination=small)
    with pytest.raises(ProtocolError, match="could not be read to its end"):
        await upstream.list_page(CARDS, {}, page=3, per_page=20)


async def test_a_guessed_next_page_that_answers_404_just_ends_the_listing() -> None:
    # No count and no next link: a full page only suggests more; a 404 after it is the end.
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "2":
            return httpx.Response(404, json={"detail": "Invalid page."})
        return httpx.Response(200, json=[{"id": i} for i in range(1, 51)])

    upstream, _ = client(answer, pagination=STYLES["page-bare"])
    assert len(await upstream.scan(CARDS, {}, limit=1000).collect()) == 50
