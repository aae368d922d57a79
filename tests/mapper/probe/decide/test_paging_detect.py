"""Paging told apart from what the API answers: field filters refused, header paging found.

Each fake below answers read-only probes the way one kind of API does: json-server
1.0-beta (``_limit``, ``_page`` with ``_limit`` and ``page`` are field filters there;
``_page&_per_page`` answers an envelope whose ``next`` is a page number), cursors and
next URLs in a header, a page number in ``X-Next-Page`` (GitLab), offsets with a
``Content-Range`` total, range requests in both spellings, and a page parameter that
filters on a field. The probe must map what pages and say why the rest does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import pytest

from mapper.probe.decide._paging import infer
from mapper.probe.live import Exchange, classify

from ..fakes import BASE

ROWS = [{"id": n, "title": f"t{n}", "_limit": None} for n in range(1, 36)]
Api = Callable[[Mapping[str, str], Mapping[str, str]], httpx.Response]


def exchange(response: httpx.Response, params: Mapping[str, str]) -> Exchange:
    url = httpx.URL(BASE + "/items").copy_merge_params(dict(params))
    response.request = httpx.Request("GET", url)
    kind, parsed, text = classify(response)
    links = {str(k): v for k, v in response.links.items()}
    status = response.status_code
    return Exchange("GET", "/items", status, kind, parsed, text, response.headers, url, links)


def probe(api: Api) -> tuple[Any, list[dict[str, str]]]:
    asked: list[dict[str, str]] = []

    def fetch(params: Mapping[str, str], headers: Mapping[str, str] | None = None) -> Exchange:
        asked.append({**params, **(headers or {})})
        return exchange(api(params, headers or {}), params)

    first = exchange(api({}, {}), {})
    return infer(first, [], fetch), asked


def filtered(params: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every parameter as a field filter, as json-server 1.0-beta reads unknown names."""
    return [r for r in ROWS if all(str(r.get(k)) == v for k, v in params.items())]


def json_server_beta(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    rest = {k: v for k, v in params.items() if k not in ("_page", "_per_page")}
    if "_page" not in params:
        return httpx.Response(200, json=filtered(rest))
    page, size = int(params["_page"]), int(params.get("_per_page", "10"))
    rows = filtered(rest)
    pages = max(1, -(-len(rows) // size))
    data = rows[(page - 1) * size : page * size]
    nxt = page + 1 if page < pages else None
    body = {"first": 1, "prev": page - 1 or None, "next": nxt, "last": pages, "pages": pages,
            "items": len(rows), "data": data}  # fmt: skip
    return httpx.Response(200, json=body)


def header_cursor(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    start = int(params.get("after", "k0")[1:] or 0)
    size = int(params.get("limit", "20"))
    rows = ROWS[start : start + size]
    more = start + size < len(ROWS)
    return httpx.Response(
        200, json=rows, headers={"X-Next-Cursor": f"k{start + size}"} if more else {}
    )


def header_url(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    start = int(params.get("starting_after", "0"))
    size = int(params.get("limit", "20"))
    rows = ROWS[start : start + size]
    nxt = f"{BASE}/items?limit={size}&starting_after={start + size}"
    more = start + size < len(ROWS)
    return httpx.Response(200, json=rows, headers={"X-Next-Page": nxt} if more else {})


def gitlab(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    page, size = int(params.get("page", "1")), int(params.get("per_page", "20"))
    rows = ROWS[(page - 1) * size : page * size]
    more = page * size < len(ROWS)
    info = {"X-Next-Page": str(page + 1) if more else "", "X-Total": str(len(ROWS))}
    return httpx.Response(200, json=rows, headers=info)


def content_range(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    start, size = int(params.get("skip", "0")), int(params.get("limit", "20"))
    rows = ROWS[start : start + size]
    shown = f"items {start}-{start + len(rows) - 1}/{len(ROWS)}"
    return httpx.Response(200, json=rows, headers={"Content-Range": shown})


def ranges(unit_header: bool) -> Api:
    def api(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
        spelled = headers.get("Range", "")
        form = r"(\d+)-(\d+)" if unit_header else r"items=(\d+)-(\d+)"
        found = re.fullmatch(form, spelled)
        if found is None or (unit_header and headers.get("Range-Unit") != "items"):
            return httpx.Response(200, json=ROWS[:20], headers={"Content-Range": "0-19/35"})
        start, last = int(found.group(1)), int(found.group(2))
        rows = ROWS[start : last + 1]
        shown = f"{start}-{start + len(rows) - 1}/{len(ROWS)}"
        return httpx.Response(206, json=rows, headers={"Content-Range": shown})

    return api


def filtering_page(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    """`page` and `per_page` filter on fields; `limit` alone pages, nothing else does."""
    size = int(params.get("limit", "35"))
    rest = {k: v for k, v in params.items() if k != "limit"}
    return httpx.Response(200, json=filtered(rest)[:size])


def total_in_body(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
    start, size = int(params.get("offset", "0")), int(params.get("limit", "10"))
    return httpx.Response(200, json={"items": ROWS[start : start + size], "total": len(ROWS)})


CASES = [
    ("offset with the total in the body", total_in_body,
     {"style": "offset", "offset": "offset", "size": "limit", "items": "items",
      "total": "total"}),
    ("json-server 1.0-beta", json_server_beta,
     {"style": "page", "page": "_page", "size": "_per_page", "items": "data", "next": "next"}),
    ("cursor in X-Next-Cursor", header_cursor,
     {"style": "cursor", "cursor": "after", "size": "limit", "items": "",
      "nextHeader": "X-Next-Cursor"}),
    ("next URL in X-Next-Page", header_url,
     {"style": "cursor", "cursor": "starting_after", "size": "limit", "items": "",
      "nextHeader": "X-Next-Page"}),
    ("page number in X-Next-Page", gitlab,
     {"style": "page", "page": "page", "size": "per_page", "items": "",
      "nextHeader": "X-Next-Page", "totalHeader": "X-Total"}),
    ("offset with a Content-Range total", content_range,
     {"style": "offset", "offset": "skip", "size": "limit", "items": "",
      "totalHeader": "Content-Range"}),
    ("Range: items=0-0", ranges(unit_header=False),
     {"style": "range", "items": "", "totalHeader": "Content-Range"}),
    ("Range-Unit and Range", ranges(unit_header=True),
     {"style": "range", "unit": "items", "unitHeader": "Range-Unit", "items": "",
      "totalHeader": "Content-Range"}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "api", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_paging_the_api_answers_is_found(name: str, api: Api, expected: Any) -> None:
    found, _ = probe(api)
    assert found is not None and found.refused is None
    assert found.pagination == expected, found.notes


def test_field_filters_are_told_apart_with_the_reason() -> None:
    found, _ = probe(json_server_beta)
    refused = [n for n in found.notes if "not paging parameters" in n]
    assert refused[0] == (
        "sample: _page=1&_limit=1 answered no record while 35 exist: the API takes it as a "
        "field filter; not paging parameters"
    )
    assert {n.split(" ")[1] for n in refused} == {
        "_page=1&_limit=1", "page=1&per_page=1", "page=1&page_size=1", "page=1&limit=1"
    }  # fmt: skip


def test_a_size_that_filters_is_not_taken_for_paging() -> None:
    found, _ = probe(filtering_page)
    # `limit` pages, but no offset, page or cursor moves past the first record.
    assert found.pagination == {"style": "none", "items": ""}
    assert "size parameter limit pages, but no page, offset or cursor was found" in found.notes


def test_a_page_number_no_parameter_reaches_is_refused() -> None:
    def stuck(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
        # `next` names page 2, but every parameter is a field filter: nothing reaches it.
        return httpx.Response(200, json={"data": filtered(params)[:10], "next": 2})

    found, _ = probe(stuck)
    assert found.pagination == {"style": "none", "items": "data"}
    assert found.refused is not None and "names page 2" in found.refused


def test_everything_in_one_answer_stays_one_request() -> None:
    def whole(params: Mapping[str, str], headers: Mapping[str, str]) -> httpx.Response:
        return httpx.Response(200, json=ROWS)

    found, asked = probe(whole)
    assert found.pagination == {"style": "none", "items": ""}
    assert all(len(a) <= 2 for a in asked)
