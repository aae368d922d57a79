"""Cursor paging whose next cursor is the last record's id while a flag says more follow.

Stripe's lists answer ``{data: [...], has_more: true}`` and take ``starting_after=<id
of the last record>``; nothing in the body names the next cursor itself.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from runtime.mapping import Pagination, check_text
from runtime.protocol import ProtocolError

from .support import CARDS, MAPPING_YAML, client, reply

pytestmark = pytest.mark.anyio

LAST_RECORD = Pagination(
    style="cursor", cursor="starting_after", size="limit", items=("data",), next_from=("id",),
    more=("has_more",), max_size=100,
)  # fmt: skip


class Cursored:
    """`count` records with ids 1..count, at most `cap` a page, as Stripe pages them."""

    def __init__(self, count: int, cap: int = 100) -> None:
        self.records = [{"id": i, "title": f"card {i}"} for i in range(1, count + 1)]
        self.cap = cap

    def __call__(self, request: httpx.Request) -> httpx.Response:
        after = request.url.params.get("starting_after")
        start = (
            next(i + 1 for i, r in enumerate(self.records) if str(r["id"]) == after) if after else 0
        )
        size = min(int(request.url.params.get("limit", "10")), self.cap)
        page = self.records[start : start + size]
        more = start + len(page) < len(self.records)
        return httpx.Response(200, json={"object": "list", "data": page, "has_more": more})


def ids(records: list[dict[str, Any]]) -> list[int]:
    return [int(r["id"]) for r in records]


@pytest.mark.parametrize(
    ("count", "cap", "requests"),
    [(0, 100, 1), (1, 100, 1), (100, 100, 1), (101, 100, 2), (250, 100, 3), (25, 10, 3)],
)
async def test_scan_walks_by_the_last_record_while_more_follow(
    count: int, cap: int, requests: int
) -> None:
    upstream, seen = client(Cursored(count, cap), pagination=LAST_RECORD)
    scan = upstream.scan(CARDS, {}, limit=1000)
    assert ids(await scan.collect()) == list(range(1, count + 1))
    assert scan.truncated is False
    assert len(seen.requests) == requests
    afters = [r.url.params.get("starting_after") for r in seen.requests]
    step = min(cap, 100)
    assert afters == [None, *(str(step * n) for n in range(1, requests))]
    assert {r.url.params["limit"] for r in seen.requests} == {"100"}


@pytest.mark.parametrize(("page", "per_page"), [(1, 10), (2, 10), (3, 60), (13, 10), (1, 137)])
async def test_list_page_is_the_slice(page: int, per_page: int) -> None:
    count = 130
    upstream, _ = client(Cursored(count), pagination=LAST_RECORD)
    result = await upstream.list_page(CARDS, {}, page=page, per_page=per_page)
    start = (page - 1) * per_page
    assert ids(result.records) == list(range(start + 1, min(start + per_page, count) + 1))
    assert result.has_more is (start + per_page < count)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"data": [{"id": 1}]}, "missing as 'has_more'"),
        ({"data": [{"id": 1}], "has_more": "yes"}, "a str as 'has_more'"),
        ({"data": [{"title": "x", "id": 1}, {"title": "y"}], "has_more": True}, "a last record"),
        ({"data": [], "has_more": True}, "an empty page while 'has_more' is true"),
    ],
)
async def test_a_page_that_cannot_be_followed_is_refused(body: dict[str, Any], why: str) -> None:
    upstream, seen = client(reply(200, body), pagination=LAST_RECORD)
    with pytest.raises(ProtocolError) as info:
        await upstream.scan(CARDS, {}, limit=1000).collect()
    assert info.value.code == "upstream_error"
    assert why in info.value.message
    assert len(seen.requests) == 1


@pytest.mark.parametrize(
    ("pagination", "problem"),
    [
        ("{style: cursor, cursor: starting_after, nextFrom: id, more: has_more}", None),
        ("{style: cursor, cursor: after, next: meta.next}", None),
        ("{style: cursor, cursor: starting_after}", "style cursor needs 'next'"),
        ("{style: cursor, nextFrom: id}", "style cursor needs 'cursor'"),
    ],
)
def test_the_mapping_states_where_the_cursor_is(pagination: str, problem: str | None) -> None:
    head, _, rest = MAPPING_YAML.partition("  pagination:\n")
    tail = rest.split("  errors:", 1)[1]
    text = f"{head}  pagination: {pagination}\n  errors:{tail}"
    _, problems = check_text(text)
    rendered = [p.render() for p in problems]
    if problem is None:
        assert rendered == []
    else:
        assert any(problem in r for r in rendered), rendered
