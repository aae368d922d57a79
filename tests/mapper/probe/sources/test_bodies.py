"""Request bodies: JSON is sent, an empty form is no body, a form with fields is refused."""

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
            "file": {"type": "string", "format": "binary"}}}}}}, "form"),
        (json_body(name={"type": "string"}), "json"),
        ({"content": {"text/plain": {}}}, "text"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_request_body_kind(method: str, body: dict[str, Any], kind: str) -> None:
    routes = _routes({"/things": {method: {"requestBody": body, "responses": answers({})}}})
    assert [r.request.kind for r in routes.routes] == [kind]


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        (EMPTY_FORM, "op:none"),
        (form(reason={"type": "string"}), "form-body: the operation takes a form body; "
                                          "the runtime writes JSON only"),
        ({"content": {"text/plain": {}}}, "non-json: the operation takes a text body, not JSON"),
        (json_body(reason={"type": "string"}), "op:body"),
    ],
)  # fmt: skip
def test_operations_by_request_body(body: dict[str, Any], outcome: str) -> None:
    routes = _routes({"/things/{id}/close": {"post": {"requestBody": body,
                                                      "responses": answers({})}}})  # fmt: skip
    ops, findings = propose(routes.routes, [], {}, routes.resolver, "api")
    assert [f"op:{o.send}" for o in ops] + [f.reason for f in findings] == [outcome]


LIST = {"get": {"responses": answers({"type": "array", "items": ref("thing")})}}
JSON_WRITE = json_body(["name"], name={"type": "string"})
FORM_WRITE = form(name={"type": "string"})


@pytest.mark.parametrize(
    ("create", "update", "delete", "methods", "detail", "left", "required"),
    [
        (JSON_WRITE, JSON_WRITE, EMPTY_FORM, {"GET", "POST"}, {"GET", "PATCH", "DELETE"}, [],
         {"name"}),
        (FORM_WRITE, FORM_WRITE, EMPTY_FORM, {"GET"}, {"GET", "DELETE"},
         ["POST /things", "PATCH /things/{id}"], set()),
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
