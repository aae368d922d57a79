"""Lists paged by the last record's id, and lists the mapping's pagination cannot walk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from mapper.probe._draft import Claim, Param
from mapper.probe._errors import NothingMappable
from mapper.probe.decide._pagefit import misfit, unpaged
from mapper.probe.decide._paging import infer, spec_paging
from mapper.probe.live import Exchange, classify, size_cap

from ..fakes import BASE
from ..fragments import LIMIT, accounting, listing, mapping, read, record, ref, spec

STRIPE_KEYS = ["object", "data", "has_more", "url"]
CURSORED = ["limit", "starting_after", "ending_before"]
LAST_ID = {
    "style": "cursor", "cursor": "starting_after", "size": "limit", "items": "data",
    "nextFrom": "id", "more": "has_more",
}  # fmt: skip


@pytest.mark.parametrize(
    ("keys", "params", "id_field", "expected"),
    [
        (STRIPE_KEYS, CURSORED, "id", LAST_ID),
        (STRIPE_KEYS, ["starting_after"], "id", {k: v for k, v in LAST_ID.items() if k != "size"}),
        (["data", "next_cursor"], CURSORED, "id",
         {"style": "cursor", "cursor": "starting_after", "items": "data", "next": "next_cursor"}),
        (STRIPE_KEYS, CURSORED, None, {"style": "none", "items": "data"}),  # no id to follow
        (["object", "data", "url"], CURSORED, "id", {"style": "none", "items": "data"}),
    ],
)  # fmt: skip
def test_spec_paging_by_the_last_record(
    keys: list[str], params: list[str], id_field: str | None, expected: dict[str, Any]
) -> None:
    assert spec_paging("data", keys, params, id_field).pagination == expected


@pytest.mark.parametrize(
    ("pagination", "params", "why"),
    [
        (LAST_ID, CURSORED, None),
        (LAST_ID, ["expand"], None),
        ({"style": "none"}, ["limit", "starting_after"], "the list takes paging parameters "
         "(limit, starting_after) and the mapping's pagination is none: one request would "
         "answer its first page only"),
        ({"style": "none"}, ["size", "start", "q"], None),  # too often fields of their own
        (LAST_ID, ["page", "limit"], "the list pages with limit, page, not with starting_after "
         "(upstream.pagination, style cursor)"),
        ({"style": "page", "page": "page"}, ["page", "page_size"], None),
        ({"style": "link"}, ["_page", "_limit"], None),
    ],
)  # fmt: skip
def test_misfit(pagination: dict[str, Any], params: list[str], why: str | None) -> None:
    assert misfit(pagination, params) == why


@pytest.mark.parametrize(
    ("pagination", "params", "note"),
    [
        (LAST_ID, ["expand"], "its list declares no paging parameter; the runtime still sends "
         "limit"),
        (LAST_ID, CURSORED, None),
        ({"style": "none"}, ["expand"], None),
        ({"style": "cursor", "cursor": "after", "next": "next"}, [], None),  # sends nothing
    ],
)  # fmt: skip
def test_unpaged(pagination: dict[str, Any], params: list[str], note: str | None) -> None:
    assert unpaged(pagination, params) == note


def _limit(description: str | None) -> Param:
    return Param("limit", "query", Claim("openapi", type="number", description=description))


@pytest.mark.parametrize(
    ("description", "cap"),
    [
        ("Limit can range between 1 and 100, and the default is 10.", 100),
        ("A number between 1 and 250.", 250),
        ("Between 5 and 100.", None),
        ("At most a hundred.", None),
        (None, None),
    ],
)
def test_size_cap(description: str | None, cap: int | None) -> None:
    found = size_cap([_limit(description)], "limit")
    assert (found[0] if found else None) == cap


def _answer(body: Any) -> Exchange:
    response = httpx.Response(200, json=body, request=httpx.Request("GET", BASE + "/v1/things"))
    kind, parsed, text = classify(response)
    return Exchange(
        "GET", "/v1/things", 200, kind, parsed, text, response.headers, response.url, {}
    )


@pytest.mark.parametrize(
    ("records", "style"),
    [([{"id": "th_1"}, {"id": "th_2"}], "cursor"), ([{"name": "a"}, {"name": "b"}], "none")],
)
def test_a_live_answer_with_a_more_flag(records: list[dict[str, Any]], style: str) -> None:
    body = {"object": "list", "data": records, "has_more": True, "url": "/v1/things"}
    found = infer(_answer(body), ["starting_after"], lambda params: _answer(body))
    assert found is not None
    assert found.pagination["style"] == style
    assert ("nextFrom" in found.pagination, found.pagination.get("more")) == (
        (True, "has_more") if style == "cursor" else (False, None)
    )


SCHEMAS = {"thing": record("thing", name={"type": "string"}), "nameless": {
    "type": "object", "properties": {"name": {"type": "string"}}}}  # fmt: skip
PAGED = [{"name": "page", "in": "query", "schema": {"type": "integer"}}, LIMIT]


def test_a_list_paged_otherwise_is_refused_and_its_routes_stay_accounted(tmp_path: Path) -> None:
    doc = spec({
        "/v1/a_things": {"get": listing(ref("thing"))},
        "/v1/a_things/{thing}": {"get": read(ref("thing"))},
        "/v1/b_pages": {"get": listing(ref("thing"), PAGED)},
        "/v1/b_pages/{page}": {"get": read(ref("thing"))},
        "/v1/c_nameless": {"get": listing(ref("nameless"))},
        "/v1/c_nameless/{x}": {"get": read(ref("nameless")), "delete": read({})},
    }, SCHEMAS)  # fmt: skip
    mapped = mapping(doc, tmp_path)
    assert list(mapped["entities"]) == ["a_things"]
    assert accounting(mapped) == {
        ("GET", "/v1/a_things"): "read",
        ("GET", "/v1/a_things/{}"): "read",
        ("GET", "/v1/b_pages"): "unmapped: paging",
        ("GET", "/v1/b_pages/{}"): "operation",
        ("GET", "/v1/c_nameless"): "unmapped: ambiguous-id",
        ("GET", "/v1/c_nameless/{}"): "operation",
        ("DELETE", "/v1/c_nameless/{}"): "operation",
    }


def test_no_list_is_read_as_its_first_page(tmp_path: Path) -> None:
    only_limit = [LIMIT]
    doc = spec({
        "/v1/things": {"get": listing(ref("thing"), only_limit)},
        "/v1/things/{thing}": {"get": read(ref("thing"))},
    }, SCHEMAS)  # fmt: skip
    with pytest.raises(NothingMappable) as info:
        mapping(doc, tmp_path)
    assert [(f.path, f.code) for f in info.value.findings] == [("/v1/things", "paging")]
