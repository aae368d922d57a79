"""Request bodies: JSON is sent, an empty form is no body, a url-encoded form with fields is
sent when the spec's writes all take forms (refused beside JSON writes), a multipart form is
a file upload."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.decide import propose
from mapper.probe.sources._collections import group
from mapper.probe.sources._openapi import read_routes
from mapper.probe.sources._specload import SpecDoc

from ..fragments import EMPTY_FORM, answers, form, json_body, ref, spec

FORM = "application/x-www-form-urlencoded"
SCHEMAS = {
    "empty": {"type": "object", "properties": {}},
    "thing": {"type": "object", "properties": {"id": {"type": "string"}}},
}


def _routes(paths: dict[str, Any]) -> Any:
    return read_routes(SpecDoc(spec(paths, SCHEMAS), "s", "openapi"))


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (EMPTY_FORM, "none"),
        ({"content": {FORM: {"schema": ref("empty")}}}, "none"),
        ({"content": {FORM: {"schema": {"type": "object"}}}}, "none"),
        (form(name={"type": "string"}), "form"),
        ({"content": {FORM: {}}}, "form"),  # no schema: its fields are unknown, not absent
        ({"content": {FORM: {"schema": {"type": "object", "additionalProperties": True}}}}, "form"),
        ({"content": {"multipart/form-data": {"schema": {"type": "object", "properties": {
            "file": {"type": "string", "format": "binary"}}}}}}, "multipart"),
        (json_body(name={"type": "string"}), "json"),
        ({"content": {"text/plain": {}}}, "text"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_request_body_kind(method: str, body: dict[str, Any], kind: str) -> None:
    routes = _routes({"/things": {method: {"requestBody": body, "responses": answers({})}}})
    assert [r.request.kind for r in routes.routes] == [kind]


MULTIPART = {"content": {"multipart/form-data": {"schema": {"type": "object", "properties": {
    "file": {"type": "string", "format": "binary"}}}}}}  # fmt: skip


@pytest.mark.parametrize(
    ("body", "encoding", "outcome"),
    [
        (EMPTY_FORM, "json", "op:none"),
        (form(reason={"type": "string"}), "json", "form-body: the operation takes a form body, "
                                                  "and the upstream's other writes take JSON"),
        (form(reason={"type": "string"}), "form", "op:body"),
        (MULTIPART, "form", "binary-request: the operation takes a multipart upload (a file)"),
        ({"content": {"text/plain": {}}}, "json",
         "non-json: the operation takes a text body, not JSON"),
        (json_body(reason={"type": "string"}), "json", "op:body"),
    ],
)  # fmt: skip
def test_operations_by_request_body(body: dict[str, Any], encoding: str, outcome: str) -> None:
    routes = _routes({"/things/{id}/close": {"post": {"requestBody": body,
                                                      "responses": answers({})}}})  # fmt: skip
    ops, findings = propose(routes.routes, [], {}, routes.resolver, "api", "openapi", encoding)
    assert [f"op:{o.send}" for o in ops] + [f.reason for f in findings] == [outcome]
    if ops and ops[0].send == "body":
        assert "reason" in ops[0].params  # the body's field is the operation's param


@pytest.mark.parametrize(
    ("bodies", "encoding"),
    [
        ([form(a={"type": "string"})], "form"),
        ([form(a={"type": "string"}), EMPTY_FORM], "form"),
        ([form(a={"type": "string"}), json_body(a={"type": "string"})], "json"),
        ([json_body(a={"type": "string"})], "json"),
        ([EMPTY_FORM], "json"),  # an empty form is no body: nothing says forms are taken
        ([MULTIPART], "json"),
    ],
)
def test_the_upstream_takes_forms_when_no_write_takes_json(
    bodies: list[dict[str, Any]], encoding: str
) -> None:
    paths = {f"/w{i}": {"post": {"requestBody": b, "responses": answers({})}}
             for i, b in enumerate(bodies)}  # fmt: skip
    assert _routes(paths).body_encoding == encoding


LIST = {"get": {"responses": answers({"type": "array", "items": ref("thing")})}}
JSON_WRITE = json_body(["name"], name={"type": "string"})
FORM_WRITE = form(name={"type": "string"})


def test_update_by_post_on_the_record_path_answering_the_record() -> None:
    answer = answers(ref("thing"))
    routes = _routes({
        "/things": {**LIST, "post": {"requestBody": FORM_WRITE, "responses": answer}},
        "/things/{id}": {
            "get": {"responses": answer},
            "post": {"requestBody": FORM_WRITE, "responses": answer},
        },
        "/things/{id}/close": {"post": {"requestBody": FORM_WRITE, "responses": answer}},
    })  # fmt: skip
    (coll,), rest, _ = group(routes)
    assert set(coll.detail_methods) == {"GET", "POST"}
    assert [f"{r.method} {r.path}" for r in rest] == ["POST /things/{id}/close"]


def test_a_post_on_the_record_path_answering_something_else_is_no_update() -> None:
    routes = _routes({
        "/things": LIST,
        "/things/{id}": {
            "get": {"responses": answers(ref("thing"))},
            "post": {"requestBody": FORM_WRITE, "responses": answers({"type": "object"})},
        },
    })  # fmt: skip
    (coll,), rest, _ = group(routes)
    assert set(coll.detail_methods) == {"GET"}
    assert [f"{r.method} {r.path}" for r in rest] == ["POST /things/{id}"]


@pytest.mark.parametrize(
    ("create", "update", "delete", "methods", "detail", "left", "required"),
    [
        (JSON_WRITE, JSON_WRITE, EMPTY_FORM, {"GET", "POST"}, {"GET", "PATCH", "DELETE"}, [],
         {"name"}),
        (FORM_WRITE, FORM_WRITE, EMPTY_FORM, {"GET", "POST"}, {"GET", "PATCH", "DELETE"}, [],
         set()),
        (FORM_WRITE, JSON_WRITE, FORM_WRITE, {"GET"}, {"GET", "PATCH"},
         ["POST /things", "DELETE /things/{id}"], set()),
    ],
)  # fmt: skip
def test_collections_keep_only_the_writes_the_runtime_can_send(
    create: Any, update: Any, delete: Any, methods: set[str], detail: set[str],
    left: list[str], required: set[str],
) -> None:  # fmt: skip
    routes = _routes({
        "/things": {**LIST, "post": {"requestBody": create, "responses": answers(ref("thing"))}},
        "/things/{id}": {
            "get": {"responses": answers(ref("thing"))},
            "patch": {"requestBody": update, "responses": answers(ref("thing"))},
            "delete": {"requestBody": delete, "responses": {"204": {"description": "gone"}}},
        },
    })  # fmt: skip
    (coll,), rest, _ = group(routes)
    assert (set(coll.methods), set(coll.detail_methods)) == (methods, detail)
    assert [f"{r.method} {r.path}" for r in rest] == left
    assert coll.required == required


def test_what_a_record_shows_beyond_its_create_body_is_read_only() -> None:
    item = {"type": "object", "properties": {"id": {"type": "string"},
            "name": {"type": "string"}, "created": {"type": "integer"}}}  # fmt: skip
    routes = _routes({
        "/things": {"get": {"responses": answers({"type": "array", "items": item})},
                    "post": {"requestBody": FORM_WRITE, "responses": answers(item)}},
        "/things/{id}": {"get": {"responses": answers(item)}},
    })  # fmt: skip
    (coll,), _, _ = group(routes)
    assert {n: bool(c.read_only) for n, c in coll.fields.items()} == {
        "id": True, "name": False, "created": True,
    }  # fmt: skip
    assert coll.fields["created"].detail == "not in the create body"


def test_a_listing_that_needs_a_query_parameter_lists_only_under_a_parent() -> None:
    needed = {"name": "parent", "in": "query", "required": True, "schema": {"type": "string"}}
    routes = _routes({
        "/things": {"get": {"parameters": [needed],
                            "responses": answers({"type": "array", "items": ref("thing")})}},
        "/things/{id}": {"get": {"responses": answers(ref("thing"))}},
    })  # fmt: skip
    colls, rest, findings = group(routes)
    assert colls == []
    assert [(f.path, f.code, f.detail) for f in findings] == [
        ("/things", "nested-collection", "listed only with the query parameter parent")
    ]
    assert [f"{r.method} {r.path}" for r in rest] == ["GET /things/{id}"]
