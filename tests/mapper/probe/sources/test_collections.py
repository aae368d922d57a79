"""Collections read from a spec: fields written on create only, or on update only (create
body vs update body)."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.sources._collections import group
from mapper.probe.sources._openapi import read_routes
from mapper.probe.sources._specload import SpecDoc

FLOW = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "pid": {"type": "string"},
        "state": {"type": "string", "readOnly": True},
    },
}
CREATE = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "tags": {"type": "array"}},
    "required": ["name"],
}
UPDATE = {"type": "object", "properties": {"tags": {"type": "array"}}}


def _json(schema: Any) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _spec(update: dict[str, Any]) -> dict[str, Any]:
    ok = {"200": _json({"$ref": "#/components/schemas/Flow"})}
    listed = {"200": _json({"type": "array", "items": {"$ref": "#/components/schemas/Flow"}})}
    return {
        "openapi": "3.0.3",
        "paths": {
            "/flows": {
                "get": {"responses": listed},
                "post": {"requestBody": _json(CREATE), "responses": {"201": ok["200"]}},
            },
            "/flows/{id}": {"get": {"responses": ok}, **update},
        },
        "components": {"schemas": {"Flow": FLOW}},
    }


def _fields(update: dict[str, Any]) -> dict[str, Any]:
    (flows,), _, _ = group(read_routes(SpecDoc(_spec(update), "spec", "openapi"), ""))
    return flows.fields


@pytest.mark.parametrize("method", ["patch", "put"])
def test_a_field_the_update_body_lacks_is_written_on_create_only(method: str) -> None:
    found = _fields({method: {"requestBody": _json(UPDATE), "responses": {"204": {}}}})
    assert found["name"].create_only is True
    assert not found["tags"].create_only
    assert not found["id"].create_only  # read-only: never written at all


def test_patch_is_the_update_when_both_are_declared() -> None:
    found = _fields({
        "patch": {"requestBody": _json(CREATE), "responses": {"204": {}}},
        "put": {"requestBody": _json(UPDATE), "responses": {"204": {}}},
    })  # fmt: skip
    assert not any(c.create_only for c in found.values())


@pytest.mark.parametrize(
    ("update", "why"),
    [
        ({}, "no update route"),
        ({"patch": {"responses": {"204": {}}}}, "the update declares no body"),
        ({"patch": {"requestBody": _json({"type": "object"}), "responses": {"204": {}}}},
         "the update body declares no property: it says nothing"),
    ],
)  # fmt: skip
def test_nothing_is_create_only_unless_both_bodies_are_known(
    update: dict[str, Any], why: str
) -> None:
    assert not any(c.create_only for c in _fields(update).values()), why


def test_a_field_only_the_update_body_has_is_written_on_update_only() -> None:
    update = {"type": "object", "properties": {"tags": {"type": "array"}, "pid": {},
                                               "state": {"type": "string"}}}  # fmt: skip
    found = _fields({"patch": {"requestBody": _json(update), "responses": {"204": {}}}})
    assert found["pid"].update_only is True and found["pid"].read_only is False
    # the spec itself says read-only: no update body changes that
    assert found["state"].read_only is True and not found["state"].update_only
    assert not found["tags"].update_only and not found["name"].update_only


def test_without_an_update_body_a_field_the_create_body_lacks_stays_read_only() -> None:
    found = _fields({})
    assert found["pid"].read_only is True and not found["pid"].update_only
