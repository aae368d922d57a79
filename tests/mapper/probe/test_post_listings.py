"""Listings made by POST, mapped from a spec alone (offline: the probe never sends them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mapper.probe import NothingMappable

from .fragments import answers, json_body, mapping, ref, spec

THING = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                   "created": {"type": "string", "format": "date-time"}},
}  # fmt: skip
CLOSED_CREATE = {
    "content": {"application/json": {"schema": {
        "type": "object", "additionalProperties": False, "required": ["name"],
        "properties": {"name": {"type": "string"}},
    }}},
}  # fmt: skip
OFFSET_BODY = json_body(offset={"type": "integer"}, limit={"type": "integer"},
                        things={"type": "object"})  # fmt: skip


def paths(verb: str = "filter", **changes: Any) -> dict[str, Any]:
    found = {
        "/things/": {"post": {"requestBody": CLOSED_CREATE, "responses": answers(ref("Thing"))}},
        "/things/{id}": {
            "get": {"parameters": [{"name": "id", "in": "path", "required": True,
                                    "schema": {"type": "string"}}],
                    "responses": answers(ref("Thing"))},
            "delete": {"responses": {"204": {"description": "gone"}}},
        },
        f"/things/{verb}": {"post": {"requestBody": OFFSET_BODY,
                                     "responses": answers({"type": "array",
                                                           "items": ref("Thing")})}},
    }  # fmt: skip
    found.update(changes)
    return found


def probed(tmp_path: Path, routes: dict[str, Any]) -> dict[str, Any]:
    return mapping(spec(routes, {"Thing": THING}), tmp_path)


def entities(tmp_path: Path, routes: dict[str, Any]) -> dict[str, Any]:
    """The entities mapped, none when nothing could be (the probe then refuses)."""
    try:
        found: dict[str, Any] = probed(tmp_path, routes)["entities"]
    except NothingMappable:
        return {}
    return found


@pytest.mark.parametrize("verb", ["filter", "search", "query", "list"])
def test_a_post_route_that_lists_the_collection_is_its_listing(verb: str, tmp_path: Path) -> None:
    doc = probed(tmp_path, paths(verb))
    things = doc["entities"]["things"]
    assert (things["path"], things["detailPath"]) == ("/things/", "/things/{id}")
    assert things["list"]["method"] == "POST" and things["list"]["path"] == f"/things/{verb}"
    assert things["list"]["pagination"] == {
        "style": "offset", "offset": "offset", "size": "limit", "items": ""
    }  # fmt: skip
    (evidence,) = things["list"]["evidence"]
    assert evidence["source"] == "openapi"
    assert "not sent by the probe (read-only)" in evidence["detail"]
    # Not also an operation: the route is consumed by the entity.
    assert all(op["request"]["path"] != f"/things/{verb}" for op in doc.get("operations", []))
    # Writes come from the other routes as usual; `created` is not in the closed create body.
    assert things.get("write", {}) == {"update": False}
    assert things["fields"]["created"]["readOnly"] is True
    assert "readOnly" not in things["fields"]["name"]


def test_an_enveloped_answer_with_page_paging_and_a_total(tmp_path: Path) -> None:
    results = {"type": "array", "items": ref("Thing")}
    envelope = {"type": "object", "properties": {"results": results, "count": {"type": "integer"}}}
    body = json_body(page={"type": "integer"}, page_size={"type": "integer"})
    search = {"post": {"requestBody": body, "responses": answers(envelope)}}
    routes = paths("search", **{"/things/search": search})
    listing = probed(tmp_path, routes)["entities"]["things"]["list"]
    assert listing["pagination"] == {
        "style": "page", "page": "page", "size": "page_size", "items": "results", "total": "count"
    }  # fmt: skip


NOT_LISTINGS = [
    ("another verb", "/things/bulk_delete", None),
    ("no paging in the body", "/things/filter", json_body(things={"type": "object"})),
    ("under another record", "/owners/{owner}/things/filter", OFFSET_BODY),
]


@pytest.mark.parametrize(("name", "route", "body"), NOT_LISTINGS, ids=[n[0] for n in NOT_LISTINGS])
def test_other_post_routes_are_not_listings(
    name: str, route: str, body: Any, tmp_path: Path
) -> None:
    routes = paths()
    del routes["/things/filter"]
    listed = answers({"type": "array", "items": ref("Thing")})
    routes[route] = {"post": {"requestBody": body or OFFSET_BODY, "responses": listed}}
    assert "things" not in entities(tmp_path, routes)


def test_a_post_filter_answering_something_else_is_not_a_listing(tmp_path: Path) -> None:
    counted = {"post": {"requestBody": OFFSET_BODY, "responses": answers({"type": "integer"})}}
    assert "things" not in entities(tmp_path, paths(**{"/things/filter": counted}))
