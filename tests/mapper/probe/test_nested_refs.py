"""A spec whose records render a ref as a nested object and take its id under another key.

`GET /api/issues` answers ``"severity": {"id": 3, "name": "high"}``; the spec's create
body takes ``severity_id``. The probe (live samples through a fake upstream, the spec
given as a file) must decide one field: a ref read from ``severity.id``, confirmed by one
lookup, written as ``severity_id`` with the spec as evidence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from mapper.probe import ProbeOptions, build_mapping, probe
from runtime.mapping import Mapping

from .fakes import BASE, Fake, json_response

SEVERITIES = [{"id": 1, "name": "low"}, {"id": 3, "name": "high"}]
ISSUES = [
    {"id": 1, "title": "Slow", "severity": SEVERITIES[1]},
    {"id": 2, "title": "Typo", "severity": SEVERITIES[0]},
]
SEVERITY = {"type": "object", "properties": {"id": {"type": "integer", "readOnly": True},
                                             "name": {"type": "string"}}}  # fmt: skip
ISSUE = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "readOnly": True},
        "title": {"type": "string"},
        "severity": {"$ref": "#/components/schemas/Severity", "readOnly": True},
    },
}
ISSUE_WRITE = {
    "type": "object",
    "required": ["title", "severity_id"],
    "properties": {"title": {"type": "string"}, "severity_id": {"type": "integer"}},
}


def _json(schema: Any) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _ok(schema: Any) -> dict[str, Any]:
    return {"200": {"description": "ok", **_json(schema)}}


def _spec() -> dict[str, Any]:
    issue, severity = "#/components/schemas/Issue", "#/components/schemas/Severity"
    write = {"requestBody": {"required": True, **_json(ISSUE_WRITE)}}
    ident = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Tracker API", "version": "1"},
        "paths": {
            "/api/issues": {
                "get": {"responses": _ok({"type": "array", "items": {"$ref": issue}})},
                "post": {
                    **write,
                    "responses": {"201": {"description": "made", **_json({"$ref": issue})}},
                },
            },
            "/api/issues/{id}": {
                "parameters": ident,
                "get": {"responses": _ok({"$ref": issue})},
                "patch": {**write, "responses": _ok({"$ref": issue})},
                "delete": {"responses": {"204": {"description": "gone"}}},
            },
            "/api/severities": {
                "get": {"responses": _ok({"type": "array", "items": {"$ref": severity}})}
            },
            "/api/severities/{id}": {
                "parameters": ident,
                "get": {"responses": _ok({"$ref": severity})},
            },
        },
        "components": {
            "schemas": {"Issue": ISSUE, "Severity": SEVERITY, "IssueWrite": ISSUE_WRITE}
        },
    }


def _upstream(request: httpx.Request) -> httpx.Response:
    tables = {"issues": ISSUES, "severities": SEVERITIES}
    parts = [p for p in request.url.path.split("/") if p]
    rows = tables.get(parts[1]) if len(parts) > 1 and parts[0] == "api" else None
    if rows is None or request.method != "GET":
        return httpx.Response(404)
    if len(parts) == 2:
        return json_response(rows)
    found = [r for r in rows if str(r["id"]) == parts[2]]
    return json_response(found[0]) if found else httpx.Response(404)


@pytest.fixture(scope="module")
def mapped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Mapping, Fake]:
    path: Path = tmp_path_factory.mktemp("spec") / "openapi.json"
    path.write_text(json.dumps(_spec()))
    fake = Fake(_upstream)
    run = probe(ProbeOptions(url=BASE, openapi=str(path)), env={}, transport=fake.transport)
    return build_mapping(run.draft), fake


def test_the_nested_ref_and_its_write_key_are_one_field(mapped: tuple[Mapping, Fake]) -> None:
    mapping, fake = mapped
    issues = mapping.entities["issues"]
    assert list(issues.fields) == ["title", "severity"]
    severity = issues.fields["severity"]
    assert (severity.type, severity.entity) == ("ref", "severities")
    assert (severity.source, severity.write_source) == (("severity", "id"), ("severity_id",))
    assert severity.required and not severity.read_only
    sources = [(e.source, e.detail) for e in severity.evidence]
    assert ("lookup", "a sampled value resolves at GET /api/severities/{id}") in sources
    assert ("openapi", "writes take the id as 'severity_id'") in sources
    assert fake.methods() <= {"GET", "HEAD", "OPTIONS"}


def test_one_lookup_confirms_the_nested_id(mapped: tuple[Mapping, Fake]) -> None:
    _, fake = mapped
    lookups = [p for m, p in fake.log if m == "GET" and p.startswith("/api/severities/")]
    # The nested values are ids 3 and 1: the lookup reads the shortest, as for flat refs.
    assert set(lookups) == {"/api/severities/1"}
