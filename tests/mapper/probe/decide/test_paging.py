"""Pagination styles, from one answer and a size probe (fake fetches, no network)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from mapper.probe.decide._paging import infer, spec_paging
from mapper.probe.live import Exchange, classify

from ..fakes import BASE, payload


def _answer(body: Any, path: str = "/items", **headers: str) -> Exchange:
    response = httpx.Response(
        200, json=body, headers=headers, request=httpx.Request("GET", BASE + path)
    )
    kind, parsed, text = classify(response)
    links = {str(k): v for k, v in response.links.items()}
    return Exchange("GET", path, 200, kind, parsed, text, response.headers, response.url, links)


def _fetcher(table: Mapping[frozenset[tuple[str, str]], Exchange]) -> Any:
    asked: list[dict[str, str]] = []

    def fetch(params: Mapping[str, str], headers: Mapping[str, str] | None = None) -> Exchange:
        asked.append({**params, **(headers or {})})
        return table.get(frozenset({**params, **(headers or {})}.items()), _answer([]))

    fetch.asked = asked  # type: ignore[attr-defined]
    return fetch


ROWS = [{"id": 1}, {"id": 2}, {"id": 3}]
ONE = _answer([{"id": 1}])


@pytest.mark.parametrize(
    ("name", "answer", "spec", "table", "expected"),
    [
        (
            "drf page",
            _answer(payload("drf-cards-page.json")),
            ["page", "page_size"],
            {
                frozenset({("page_size", "1")}): _answer(
                    {
                        "count": 3,
                        "next": "x",
                        "results": payload("drf-cards-page.json")["results"][:1],
                    }
                )
            },
            {
                "style": "page",
                "page": "page",
                "size": "page_size",
                "items": "results",
                "total": "count",
                "next": "next",
            },
        ),
        (
            "drf limit/offset",
            _answer(
                {
                    "count": 3,
                    "next": f"{BASE}/items?limit=2&offset=2",
                    "previous": None,
                    "results": ROWS[:2],
                }
            ),
            [],
            {frozenset({("limit", "1")}): _answer({"count": 3, "results": ROWS[:1]})},
            {
                "style": "offset",
                "offset": "offset",
                "size": "limit",
                "items": "results",
                "total": "count",
                "next": "next",
            },
        ),
        (
            "drf cursor",
            _answer({"next": f"{BASE}/items?cursor=cD0y", "previous": None, "results": ROWS}),
            [],
            {},
            {"style": "cursor", "cursor": "cursor", "items": "results", "next": "next"},
        ),
        (
            "opaque cursor",
            _answer({"data": ROWS, "next_cursor": "abc=="}),
            [],
            {},
            {"style": "cursor", "cursor": "cursor", "items": "data", "next": "next_cursor"},
        ),
        (
            "pocketbase",
            _answer({"page": 1, "perPage": 30, "totalItems": 3, "totalPages": 1, "items": ROWS}),
            [],
            {frozenset({("perPage", "1")}): _answer({"page": 1, "items": ROWS[:1]})},
            {
                "style": "page",
                "page": "page",
                "size": "perPage",
                "items": "items",
                "total": "totalItems",
            },
        ),
        (
            "rails kaminari",
            _answer(ROWS, **{"X-Total-Count": "3"}),
            [],
            {
                frozenset({("page", "1"), ("per_page", "1")}): _answer(
                    ROWS[:1], **{"X-Total-Count": "3"}
                ),
                frozenset({("page", "2"), ("per_page", "1")}): _answer(ROWS[1:2]),
            },
            {
                "style": "page",
                "page": "page",
                "size": "per_page",
                "items": "",
                "totalHeader": "X-Total-Count",
            },
        ),
        (
            "json-server",
            _answer(ROWS),
            [],
            {
                frozenset({("_page", "1"), ("_limit", "1")}): _answer(
                    ROWS[:1],
                    Link=f'<{BASE}/items?_page=2&_limit=1>; rel="next"',
                    **{"X-Total-Count": "3"},
                ),
                frozenset({("_page", "2"), ("_limit", "1")}): _answer(ROWS[1:2]),
            },
            {
                "style": "link",
                "page": "_page",
                "size": "_limit",
                "items": "",
                "totalHeader": "X-Total-Count",
            },
        ),
        (
            "link header",
            _answer(ROWS, Link=f'<{BASE}/items?page=2&per_page=3>; rel="next"'),
            [],
            {},
            {"style": "link", "page": "page", "size": "per_page", "items": ""},
        ),
        ("bare, nothing honoured", _answer(ROWS), [], {}, {"style": "none", "items": ""}),
    ],
)
def test_styles(
    name: str, answer: Exchange, spec: list[str], table: Any, expected: dict[str, Any]
) -> None:
    found = infer(answer, spec, _fetcher(table))
    assert found is not None
    assert found.pagination == expected, name
    assert found.notes


def test_a_single_record_does_not_get_a_size_probe() -> None:
    fetch = _fetcher({})
    found = infer(ONE, [], fetch)
    assert found is not None and found.pagination["style"] == "none"
    assert fetch.asked == []


def test_not_a_list_is_no_pagination() -> None:
    assert infer(_answer({"detail": "x"}), [], _fetcher({})) is None


@pytest.mark.parametrize(
    ("items", "keys", "params", "expected"),
    [
        (
            "results",
            ["count", "next", "previous", "results"],
            ["page", "page_size", "ordering"],
            {
                "style": "page",
                "page": "page",
                "size": "page_size",
                "items": "results",
                "total": "count",
                "next": "next",
            },
        ),
        (
            "results",
            ["count", "next", "results"],
            ["limit", "offset"],
            {
                "style": "offset",
                "offset": "offset",
                "size": "limit",
                "items": "results",
                "total": "count",
                "next": "next",
            },
        ),
        ("", [], [], {"style": "none", "items": ""}),
    ],
)
def test_spec_paging(
    items: str, keys: list[str], params: list[str], expected: dict[str, Any]
) -> None:
    assert spec_paging(items, keys, params).pagination == expected
