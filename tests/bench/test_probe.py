"""Smoke test of `python -m bench.probe --smoke` on a small local spec; nothing is installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import probe

NOTE = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "readOnly": True},
        "title": {"type": "string", "maxLength": 100},
        "done": {"type": "boolean"},
    },
    "required": ["id", "title"],
}
NOTE_IN = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _answer(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", **_json(schema)}}


def _spec() -> dict[str, Any]:
    page = [
        {"name": name, "in": "query", "schema": {"type": "integer"}}
        for name in ("page", "page_size")
    ]
    listing = {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "next": {"type": "string", "nullable": True},
            "results": {"type": "array", "items": {"$ref": "#/components/schemas/Note"}},
        },
    }
    note = {"$ref": "#/components/schemas/Note"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Notes API", "version": "1"},
        "servers": [{"url": "http://notes.invalid/api"}],
        "paths": {
            "/notes/": {
                "get": {"parameters": page, "responses": _answer(listing)},
                "post": {"requestBody": _json(NOTE_IN), "responses": _answer(note)},
            },
            "/notes/{id}/": {
                "parameters": [{"name": "id", "in": "path", "required": True}],
                "get": {"responses": _answer(note)},
                "patch": {"requestBody": _json(NOTE_IN), "responses": _answer(note)},
                "delete": {"responses": {"204": {"description": "gone"}}},
            },
            "/notes/{id}/pin/": {
                "parameters": [{"name": "id", "in": "path", "required": True}],
                "post": {"responses": _answer(note)},
            },
        },
        "components": {"schemas": {"Note": NOTE}},
    }


def test_probe_benchmark_runs_on_a_local_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "notes.json"
    spec.write_text(json.dumps(_spec()))
    code = probe.main(["--spec", str(spec), "--smoke", "--app-id", "notes"])
    out = capsys.readouterr().out
    # A small spec's json.load costs next to nothing: smoke judges no target, only the checks.
    assert code == 0, out
    assert "run 1: json.load" in out and "median ratio" in out
    assert out.count("not judged (smoke)") == 2
    assert "Spec: " in out and "3 paths, 6 operations" in out
    assert "a2map lint: exit 0" in out
    assert "Mapped: 1 entities" in out
    assert "ok    every spec route is mapped or listed as unmapped" in out


def test_accounting_flags_what_the_mapping_leaves_out() -> None:
    form: dict[str, Any] = {
        "content": {"application/x-www-form-urlencoded": {"schema": {"properties": {}}}}
    }
    spec: dict[str, Any] = {
        "paths": {
            "/v1/things": {
                "get": {"parameters": [{"name": "starting_after", "in": "query"}]},
                "post": {"requestBody": {"content": {"application/x-www-form-urlencoded": {}}}},
            },
            "/v1/things/{thing}": {"get": {}},
            "/v1/balance": {"get": {"requestBody": form}},
            "/v1/others/{other}": {"delete": {}},
        }
    }
    mapping = {
        "upstream": {"pagination": {"style": "none", "items": "data"}},
        "entities": {
            "things": {
                "path": "/v1/things",
                "write": {"update": False, "delete": False},
                "fields": {"name": {"type": "string"}},
            }
        },
        "unmapped": [
            {"path": "/v1/balance", "method": "GET", "reason": "non-json: takes a form body"}
        ],
    }
    found = probe.account(spec, mapping)
    assert (found.entities, found.fields, found.operations, found.routes) == (1, 1, 0, 5)
    assert [f"{r.method} {r.path}" for r in found.silent] == ["DELETE /v1/others/{other}"]
    assert found.creates_not_json == ["things"]
    assert found.unwalkable_lists == ["things"]
    assert [r.path for r in found.empty_form_reasons] == ["/v1/balance"]
    assert found.reasons == {"non-json": 1}
