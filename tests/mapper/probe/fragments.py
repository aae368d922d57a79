"""Small hand-written OpenAPI fragments in the shapes a large payments API uses.

Lists answer ``{object, data, has_more, url}`` and page with ``limit``,
``starting_after`` and ``ending_before``; every GET and DELETE declares an empty
form body; writes take form bodies; a detail read answers ``anyOf[record,
deleted stub]``; references are expandable (``anyOf[string, $ref]`` with
``x-expansionResources``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mapper.probe._run import ProbeOptions, probe
from mapper.probe.render import document

EMPTY_FORM = {
    "content": {
        "application/x-www-form-urlencoded": {
            "schema": {"additionalProperties": False, "properties": {}, "type": "object"}
        }
    }
}
LIMIT = {
    "name": "limit",
    "in": "query",
    "description": "A limit on the number of objects. Limit can range between 1 and 100.",
    "schema": {"type": "integer"},
}
PAGING = [
    LIMIT,
    {"name": "starting_after", "in": "query", "schema": {"type": "string"}},
    {"name": "ending_before", "in": "query", "schema": {"type": "string"}},
]
EXPAND = {"name": "expand", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def answers(schema: Any) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def form(**props: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": props}
    return {"content": {"application/x-www-form-urlencoded": {"schema": schema}}}


def json_body(required: list[str] | None = None, **props: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "required": required or []}
    return {"content": {"application/json": {"schema": schema}}}


def listing(item: Any, params: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    envelope = {
        "type": "object",
        "properties": {
            "object": {"type": "string", "enum": ["list"]},
            "data": {"type": "array", "items": item},
            "has_more": {"type": "boolean"},
            "url": {"type": "string"},
        },
    }
    return {
        "description": "<p>Returns a list of <a href='/docs'>records</a>.</p>",
        "parameters": PAGING if params is None else params,
        "requestBody": EMPTY_FORM,
        "responses": answers(envelope),
        **extra,
    }


def read(schema: Any, params: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "parameters": [EXPAND] if params is None else params,
        "requestBody": EMPTY_FORM,
        "responses": answers(schema),
        **extra,
    }


def record(title: str, /, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "title": title,
        "required": ["id"],
        "properties": {"id": {"type": "string"}, "object": {"type": "string"}, **props},
    }


def deleted(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["deleted", "id"],
        "properties": {
            "deleted": {"type": "boolean", "enum": [True]},
            "id": {"type": "string"},
            "object": {"type": "string", "enum": [name]},
        },
    }


def expandable(*targets: str) -> dict[str, Any]:
    return {
        "anyOf": [{"type": "string"}, *(ref(t) for t in targets)],
        "nullable": True,
        "x-expansionResources": {"oneOf": [ref(t) for t in targets]},
    }


def spec(paths: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "openapi": "3.0.0",
        "info": {"title": "Payments", "version": "1"},
        "servers": [{"url": "https://api.example.test/"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }


def mapping(doc: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """The mapping document the probe writes for `doc`, offline."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return document(probe(ProbeOptions(openapi=str(path), app_id="pay")).draft)


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def accounting(mapped: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(method, path with placeholders alike) -> how the mapping accounts for the route:
    ``read``, ``create``, ``update``, ``delete``, ``operation``, or ``unmapped: <code>``."""
    found: dict[tuple[str, str], str] = {}
    for entity in mapped["entities"].values():
        write = entity.get("write", {})
        detail = entity.get("detailPath") or entity["path"] + "/{id}"
        found[("GET", _shape(entity["path"]))] = "read"
        found[("GET", _shape(detail))] = "read"
        if write.get("create", True):
            found[("POST", _shape(entity["path"]))] = "create"
        if write.get("update", "PATCH"):
            found[(write.get("update", "PATCH"), _shape(detail))] = "update"
        if write.get("delete", True):
            found[("DELETE", _shape(detail))] = "delete"
    for op in mapped.get("operations", []):
        found[(op["request"]["method"], _shape(op["request"]["path"]))] = "operation"
    for entry in mapped.get("unmapped", []):
        if "method" in entry:
            code = entry["reason"].split(":", 1)[0]
            found.setdefault((entry["method"], _shape(entry["path"])), f"unmapped: {code}")
    return found
