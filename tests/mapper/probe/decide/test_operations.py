"""Non-CRUD routes proposed as operations, from the recorded DRF spec and small specs."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.decide._operations import propose
from mapper.probe.sources import SpecDoc, group, read_routes

from ..fakes import payload


def _ops(doc: dict[str, Any]) -> Any:
    routes = read_routes(SpecDoc(doc, "s", "openapi"))
    colls, rest, _ = group(routes)
    modules = {c.name: c.tag or "api" for c in colls}
    return propose(rest, colls, modules, routes.resolver, "api")


def test_the_drf_actions() -> None:
    ops, findings = _ops(payload("drf-openapi.json"))
    table = {
        op.name: (
            op.method,
            op.path,
            op.entity,
            op.module,
            op.send,
            op.destructive,
            op.read_only,
            op.idempotent,
            {n: (c.type, c.entity) for n, c in op.params.items()},
            sorted(op.required),
        )
        for op in ops
    }
    assert table == {
        "archive-board": (
            "POST",
            "/api/boards/{board}/archive/",
            "boards",
            "boards",
            "none",
            True,
            False,
            False,
            {"board": ("ref", "boards")},
            ["board"],
        ),
        "report-board": (
            "POST",
            "/api/boards/{board}/report/",
            "boards",
            "boards",
            "query",
            False,
            False,
            False,
            {"board": ("ref", "boards"), "seconds": ("number", None)},
            ["board"],
        ),
        "finish-card": (
            "POST",
            "/api/cards/{card}/finish/",
            "cards",
            "cards",
            "none",
            False,
            False,
            False,
            {"card": ("ref", "cards")},
            ["card"],
        ),
        "finished-count-cards": (
            "GET",
            "/api/cards/finished-count/",
            None,
            "cards",
            "none",
            False,
            True,
            True,
            {},
            [],
        ),
    }
    assert findings == []


def _route(method: str, path: str, op: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.0.3", "paths": {path: {method: {"responses": {}, **op}}}}


JSON_OK = {"200": {"content": {"application/json": {"schema": {"type": "object"}}}}}


@pytest.mark.parametrize(
    ("method", "path", "op", "outcome"),
    [
        (
            "get",
            "/reports/export",
            {"responses": {"200": {"content": {"application/pdf": {}}}}},
            "binary-response",
        ),
        ("get", "/status", {"responses": {"200": {"content": {"text/html": {}}}}}, "html-response"),
        ("get", "/ping", {"responses": {"204": {"description": "ok"}}}, "no-schema"),
        (
            "post",
            "/upload",
            {"requestBody": {"content": {"application/octet-stream": {}}}, "responses": JSON_OK},
            "binary-request",
        ),
        (
            "post",
            "/import",
            {
                "parameters": [{"name": "dry", "in": "query", "schema": {"type": "boolean"}}],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"type": "object", "properties": {"rows": {"type": "array"}}}
                        }
                    }
                },
                "responses": JSON_OK,
            },
            "mixed-params",
        ),
        ("delete", "/cache", {"responses": {"204": {"description": "gone"}}}, "cache:destructive"),
        ("post", "/purge-old", {"responses": JSON_OK}, "purge-old:destructive"),
        (
            "post",
            "/reset-view",
            {"responses": JSON_OK, "x-a2app-destructive": False},
            "reset-view:kept",
        ),
        (
            "post",
            "/send-digest",
            {
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["to"],
                                "properties": {
                                    "to": {"type": "string"},
                                    "id": {"type": "string", "readOnly": True},
                                },
                            }
                        }
                    }
                },
                "responses": JSON_OK,
            },
            "send-digest:body",
        ),
    ],
)
def test_routes(method: str, path: str, op: dict[str, Any], outcome: str) -> None:
    ops, findings = _ops(_route(method, path, op))
    if ":" not in outcome:
        assert not ops and [f.code for f in findings] == [outcome]
        return
    name, what = outcome.split(":")
    (found,) = ops
    assert found.name == name
    if what == "destructive":
        assert found.destructive and not found.read_only
    elif what == "kept":
        assert not found.destructive and found.evidence[-1].detail == "x-a2app-destructive: false"
    else:
        assert found.send == "body" and list(found.params) == ["to"] and found.required == {"to"}
