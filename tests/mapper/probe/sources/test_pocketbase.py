"""The PocketBase source of the probe, against an in-memory PocketBase (no network).

The fake answers as PocketBase 0.40.6 does (the shapes of
`samples/pocketbase_kanban` and the reference): ``{data, message, status}``
for every error, ``GET /api/collections`` to a superuser only, records in
``{items, page, perPage, totalItems, totalPages}`` with ``""`` for unset
selects, relations and dates. A real server is probed end to end in
`tests/stacks/test_pocketbase.py`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import pytest
import yaml

from mapper.probe import AuthRefused, ProbeOptions, probe, render
from mapper.probe._draft import Claim
from mapper.probe.sources._pocketbase import claim_of
from runtime.mapping import check_text

from ..fakes import BASE, Fake, json_response

TOKEN = "superuser-jwt"
AUTODATE = [
    {"name": "created", "type": "autodate", "onCreate": True, "onUpdate": False},
    {"name": "updated", "type": "autodate", "onCreate": True, "onUpdate": True},
]
ID = {"name": "id", "type": "text", "primaryKey": True, "required": True, "system": True}


def _collection(ident: str, name: str, kind: str, fields: list[dict[str, Any]],
                system: bool = False) -> dict[str, Any]:  # fmt: skip
    return {"id": ident, "name": name, "type": kind, "system": system,
            "fields": [ID, *fields, *AUTODATE]}  # fmt: skip


COLLECTIONS = [
    _collection("pbc_1", "_superusers", "auth", [{"name": "email", "type": "email"}], True),
    _collection("_pb_users_auth_", "users", "auth", [
        {"name": "password", "type": "password", "hidden": True, "required": True},
        {"name": "email", "type": "email", "required": True},
    ]),
    _collection("pbc_2", "projects", "base", [
        {"name": "name", "type": "text", "required": True, "max": 80, "help": "shown on boards"},
        {"name": "budget", "type": "number"},
        {"name": "active", "type": "bool"},
        {"name": "kickoff", "type": "date"},
        {"name": "kind", "type": "select", "values": ["a", "b"], "maxSelect": 1},
        {"name": "labels", "type": "select", "values": ["x", "y", "z"], "maxSelect": 3},
        {"name": "owner", "type": "relation", "collectionId": "_pb_users_auth_", "maxSelect": 1},
        {"name": "data", "type": "json"},
        {"name": "cover", "type": "file", "maxSelect": 1},
        {"name": "secret", "type": "text", "hidden": True},
    ]),
    _collection("pbc_3", "tasks", "base", [
        {"name": "title", "type": "text", "required": True},
        {"name": "project", "type": "relation", "collectionId": "pbc_2", "maxSelect": 1,
         "required": True},
        {"name": "parent", "type": "relation", "collectionId": "pbc_3", "maxSelect": 1,
         "cascadeDelete": True},
        {"name": "blockers", "type": "relation", "collectionId": "pbc_3", "maxSelect": 9},
    ]),
    _collection("pbc_4", "stats", "view", [{"name": "count", "type": "number"}]),
]  # fmt: skip
STAMP = {"created": "2026-07-30 00:00:00.000Z", "updated": "2026-07-30 00:00:00.000Z"}
RECORDS: dict[str, list[dict[str, Any]]] = {
    "projects": [
        {"id": "prj000000000001", "name": "Alpha", "budget": 10, "active": True,
         "kickoff": "2026-09-01 00:00:00.000Z", "kind": "a", "labels": ["x"], "owner": "",
         "data": {"k": 1}, "cover": "", "secret": "s", **STAMP},
        {"id": "prj000000000002", "name": "Beta", "budget": 0, "active": False, "kickoff": "",
         "kind": "", "labels": [], "owner": "", "data": None, "cover": "", "secret": "t",
         **STAMP},
    ],
    "tasks": [
        {"id": "tsk000000000001", "title": "One", "project": "prj000000000001", "parent": "",
         "blockers": [], **STAMP},
        {"id": "tsk000000000002", "title": "Two", "project": "prj000000000002",
         "parent": "tsk000000000001", "blockers": ["tsk000000000001"], **STAMP},
    ],
    "stats": [{"id": "prj000000000001", "count": 1, **STAMP}],
}  # fmt: skip


def _error(status: int, message: str) -> httpx.Response:
    return json_response({"data": {}, "message": message, "status": status}, status)


def _listing(rows: Sequence[Mapping[str, Any]], params: httpx.QueryParams) -> httpx.Response:
    page, size = int(params.get("page", "1")), int(params.get("perPage", "30"))
    body = {"items": rows[(page - 1) * size : page * size], "page": page, "perPage": size,
            "totalItems": len(rows), "totalPages": math.ceil(len(rows) / size)}  # fmt: skip
    return json_response(body)


def pocketbase() -> Fake:
    def handle(request: httpx.Request) -> httpx.Response:
        parts = [p for p in request.url.path.split("/") if p]
        superuser = request.headers.get("authorization") == TOKEN
        if request.method != "GET" or parts[:2] != ["api", "collections"]:
            return _error(404, "File not found.")
        if len(parts) == 2:
            if not superuser:
                return _error(401, "The request requires valid record authorization token.")
            return _listing(COLLECTIONS, request.url.params)
        if parts[2] not in RECORDS or parts[3:4] != ["records"]:
            return _error(404, "Missing collection context.")
        if not superuser:
            return _error(403, "Only superusers can perform this action.")
        rows = [{"collectionId": "pbc", "collectionName": parts[2], **r} for r in RECORDS[parts[2]]]
        if len(parts) == 5:
            found = [r for r in rows if r["id"] == parts[4]]
            return json_response(found[0]) if found else _error(404, "Not found.")
        return _listing(rows, request.url.params)

    return Fake(handle)


def _probe(fake: Fake, token: str | None = TOKEN) -> str:
    headers = ("Authorization: ${PB_TOKEN}",) if token else ()
    options = ProbeOptions(url=BASE, headers=headers, app_id="pb")
    return render(probe(options, env={"PB_TOKEN": token or ""}, transport=fake.transport).draft)


@pytest.fixture(scope="module")
def probed() -> tuple[Fake, str]:
    fake = pocketbase()
    return fake, _probe(fake)


MISSING = object()
INFERRED: list[tuple[str, Any]] = [
    ("upstream.auth", {"type": "header", "name": "Authorization", "value": "${PB_TOKEN}"}),
    ("upstream.pagination", {"style": "page", "page": "page", "size": "perPage", "items": "items",
                             "total": "totalItems", "maxSize": 1000}),
    ("upstream.errors", "pocketbase"),
    ("upstream.dialect", "pocketbase"),
    ("entities.projects.path", "/api/collections/projects/records"),
    ("entities.projects.fields.name", {"type": "string", "required": True, "max": 80,
                                       "description": "shown on boards",
                                       "evidence": ["pocketbase", "sample"],
                                       "confidence": "high"}),
    ("entities.projects.fields.budget.type", "number"),
    ("entities.projects.fields.active.type", "boolean"),
    ("entities.projects.fields.kickoff.type", "datetime"),
    ("entities.projects.fields.kickoff.evidence", ["pocketbase", "sample"]),
    ("entities.projects.fields.kind.values", ["a", "b"]),
    ("entities.projects.fields.kind.evidence", ["pocketbase", "sample"]),
    ("entities.projects.fields.labels.type", "list<enum>"),
    ("entities.projects.fields.owner.type", "string"),
    ("entities.projects.fields.data.type", "json"),
    ("entities.projects.fields.created.readOnly", True),
    ("entities.projects.fields.cover", MISSING),
    ("entities.projects.fields.secret", MISSING),
    ("entities.projects.fields.collectionId", MISSING),
    ("entities.projects.filter.kind", {op: {"param": "filter", "evidence": ["pocketbase"]}
                                       for op in ("=", "!=")}),
    ("entities.projects.filter.labels", {"?=": {"param": "filter", "evidence": ["pocketbase"]}}),
    ("entities.projects.filter.data", MISSING),
    ("entities.projects.sort", {"param": "sort", "desc": "-", "fields": [
        "id", "name", "budget", "active", "kickoff", "kind", "owner", "created", "updated"]}),
    ("entities.tasks.fields.project.entity", "projects"),
    ("entities.tasks.fields.project.upstreamOnDelete", "restrict"),
    ("entities.tasks.fields.parent.upstreamOnDelete", "cascade"),
    ("entities.tasks.fields.blockers.type", "list<ref>"),
    ("entities.tasks.fields.blockers.upstreamOnDelete", "set-null"),
    ("entities.tasks.fields.blockers.confidence", "high"),
    ("entities.stats.write", {"create": False, "update": False, "delete": False}),
    ("entities.users", MISSING),
    ("entities._superusers", MISSING),
]  # fmt: skip
UNMAPPED = [
    ("/api/collections", "spec-document"),
    ("/api/collections/_superusers/records", "system-collection"),
    ("/api/collections/projects/records", "binary-request"),
    ("/api/collections/projects/records", "hidden-field"),
    ("/api/collections/users/records", "auth-collection"),
]


def _at(doc: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return MISSING
        doc = doc[part]
    return doc


@pytest.mark.parametrize(("where", "expected"), INFERRED, ids=[w for w, _ in INFERRED])
def test_what_the_schema_and_samples_say(
    probed: tuple[Fake, str], where: str, expected: Any
) -> None:
    assert _at(yaml.safe_load(probed[1]), where) == expected


def test_the_mapping_lints_lists_what_it_leaves_out_and_reprobes_identically(
    probed: tuple[Fake, str],
) -> None:
    fake, text = probed
    assert check_text(text)[1] == []
    doc = yaml.safe_load(text)
    unmapped = [(u["path"], u["reason"].split(":")[0]) for u in doc["unmapped"]]
    assert unmapped == UNMAPPED
    assert fake.methods() <= {"GET", "HEAD", "OPTIONS"}
    assert ("GET", "/api/collections?page=1&perPage=200&sort=id") in fake.log
    assert _probe(pocketbase()) == text


def test_without_a_superuser_token_nothing_is_mapped_and_the_schema_says_why() -> None:
    with pytest.raises(AuthRefused) as refused:
        _probe(pocketbase(), token=None)
    reasons = {(f.path, f.code) for f in refused.value.findings}
    assert ("/api/collections", "auth-refused") in reasons
    assert refused.value.exit_code == 2 and refused.value.header.startswith("Authorization: ")


CLAIMS: list[tuple[dict[str, Any], Claim | tuple[str, str]]] = [
    ({"type": "text", "max": 0}, Claim("pocketbase", type="string", wire="string",
                                       required=False, read_only=False)),
    ({"type": "editor", "max": 9}, Claim("pocketbase", type="string", wire="string",
                                         required=False, read_only=False)),
    ({"type": "url", "required": True}, Claim("pocketbase", type="string", wire="string",
                                              required=True, read_only=False)),
    ({"type": "autodate"}, Claim("pocketbase", type="datetime", wire="string", required=False,
                                 read_only=True)),
    ({"type": "select", "values": ["a", ""], "maxSelect": 0},
     Claim("pocketbase", type="enum", values=("a",), wire="string", required=False,
           read_only=False)),
    ({"type": "select", "values": []}, ("no-schema", "a select field without values")),
    ({"type": "relation", "collectionId": "c1", "maxSelect": 2},
     Claim("pocketbase", type="list<ref>", entity="lists", wire="array:string", required=False,
           read_only=False)),
    ({"type": "geoPoint"}, Claim("pocketbase", type="json", wire="object", required=False,
                                 read_only=False)),
    ({"type": "password", "hidden": True}, ("hidden-field", "a hidden password field "
                                            "(superusers only)")),
    ({"type": "file"}, ("binary-request", "a file field, written as a multipart upload")),
    ({"type": "vector"}, ("no-schema", "a vector field")),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "claim"), CLAIMS, ids=[str(s) for s, _ in CLAIMS])
def test_each_field_type(spec: dict[str, Any], claim: Claim | tuple[str, str]) -> None:
    assert claim_of({"name": "f", **spec}, {"c1": "lists"}) == claim
