"""Specs read into collections and routes: OpenAPI 3.0 (recorded), 3.1 and Swagger 2."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mapper.probe.sources._collections import group
from mapper.probe.sources._openapi import read_routes, url_path
from mapper.probe.sources._specload import SpecDoc

from ..fakes import payload


def _read(doc: dict[str, Any], source: str = "openapi", base: str = "") -> Any:
    return group(read_routes(SpecDoc(doc, "spec", source), base))


def test_the_recorded_drf_spec_has_four_collections_and_four_actions() -> None:
    colls, rest, findings = _read(payload("drf-openapi.json"))
    assert [c.name for c in colls] == ["boards", "cards", "lists", "tags"]
    cards = next(c for c in colls if c.name == "cards")
    assert (cards.path, cards.detail_path, cards.id_param) == (
        "/api/cards/",
        "/api/cards/{id}/",
        "id",
    )
    assert cards.items_key == "results" and cards.required == frozenset({"title"})
    kinds = {n: (c.type, c.day_key, c.read_only, c.values) for n, c in cards.fields.items()}
    assert kinds == {
        "id": ("string", False, True, ()),
        "title": ("string", False, False, ()),
        "priority": ("enum", False, False, ("none", "low", "medium", "high", "urgent")),
        "due": ("string", True, False, ()),
        "done": ("boolean", False, False, ()),
        "created": ("datetime", False, True, ()),
        "list": ("string", False, False, ()),
        "tags": ("json", False, False, ()),
    }
    assert cards.fields["tags"].wire == "array:string"
    assert sorted((r.method, r.path) for r in rest) == [
        ("GET", "/api/cards/finished-count/"),
        ("POST", "/api/boards/{id}/archive/"),
        ("POST", "/api/boards/{id}/report/"),
        ("POST", "/api/cards/{id}/finish/"),
    ]
    assert findings == []


SWAGGER2: dict[str, Any] = {
    "swagger": "2.0",
    "basePath": "/v1",
    "consumes": ["application/json"],
    "produces": ["application/json"],
    "securityDefinitions": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
    "paths": {
        "/pets": {
            "get": {
                "tags": ["pets"],
                "parameters": [
                    {
                        "name": "status",
                        "in": "query",
                        "type": "string",
                        "enum": ["sold", "available"],
                    }
                ],
                "responses": {
                    "200": {"schema": {"type": "array", "items": {"$ref": "#/definitions/Pet"}}}
                },
            },
            "post": {
                "parameters": [
                    {
                        "name": "body",
                        "in": "body",
                        "required": True,
                        "schema": {"$ref": "#/definitions/NewPet"},
                    }
                ],
                "responses": {"201": {"schema": {"$ref": "#/definitions/Pet"}}},
            },
        },
        "/pets/{petId}": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "type": "integer"}],
            "get": {"responses": {"200": {"schema": {"$ref": "#/definitions/Pet"}}}},
            "delete": {"responses": {"204": {"description": "gone"}}},
        },
        "/pets/{petId}/photo": {
            "post": {
                "consumes": ["multipart/form-data"],
                "parameters": [{"name": "file", "in": "formData", "type": "file"}],
                "responses": {"200": {"description": "ok"}},
            },
        },
    },
    "definitions": {
        "Pet": {
            "type": "object",
            "required": ["id", "name"],
            "properties": {
                "id": {"type": "integer", "readOnly": True},
                "name": {"type": "string", "maxLength": 40},
                "born": {"type": "string", "format": "date"},
                "owner": {"type": "string", "x-nullable": True},
            },
        },
        "NewPet": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "password": {"type": "string"}},
        },
    },
}


def test_swagger_2_is_read_through_the_openapi_3_reader() -> None:
    routes = read_routes(SpecDoc(SWAGGER2, "spec", "swagger"), "")
    colls, rest, _ = group(routes)
    (pets,) = colls
    assert (pets.path, pets.detail_path, pets.id_param, pets.items_key) == (
        "/v1/pets",
        "/v1/pets/{petId}",
        "petId",
        "",
    )
    assert pets.fields["id"].wire == "integer" and pets.fields["owner"].nullable
    assert pets.fields["born"].day_key and pets.fields["password"].write_only
    assert pets.required == frozenset({"name"})
    assert pets.methods == frozenset({"GET", "POST"}) and "DELETE" in pets.detail_methods
    assert [(r.method, r.path, r.request.kind) for r in rest] == [
        ("POST", "/v1/pets/{petId}/photo", "multipart")
    ]
    assert routes.schemes["key"].where == "header"
    assert read_routes(SpecDoc(SWAGGER2, "spec", "swagger"), "/v1").routes[0].path == "/pets"


def _spec31(props: dict[str, Any]) -> dict[str, Any]:
    item = {"type": "object", "properties": {"id": {"type": "string"}, **props}}
    return {
        "openapi": "3.1.0",
        "paths": {
            "/nodes": {
                "get": {
                    "responses": {
                        "200": {
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "array",
                                        "items": {"$ref": "#/components/schemas/Node"},
                                    }
                                }
                            }
                        }
                    }
                }
            },
            "/nodes/{id}": {
                "get": {
                    "responses": {
                        "200": {
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Node"}
                                }
                            }
                        }
                    }
                }
            },
        },
        "components": {"schemas": {"Node": item}},
    }


@pytest.mark.parametrize(
    ("prop", "type_", "nullable"),
    [
        ({"type": ["string", "null"]}, "string", True),
        ({"type": ["integer", "null"]}, "number", True),
        ({"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]}, "enum", True),
        (
            {"anyOf": [{"type": "string", "format": "date-time"}, {"enum": [None]}]},
            "datetime",
            True,
        ),
        ({"allOf": [{"type": "string", "maxLength": 5}]}, "string", False),
        ({"const": "fixed"}, "enum", False),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, "json", False),
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "json", False),
        ({"type": ["string", "integer"]}, "json", False),
        ({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}, "list<enum>", False),
        ({"type": "string", "format": "binary"}, "binary", False),
    ],
)
def test_openapi_3_1_shapes(prop: dict[str, Any], type_: str, nullable: bool) -> None:
    (node,), _, _ = _read(_spec31({"value": prop}))
    claim = node.fields["value"]
    assert (claim.type, bool(claim.nullable)) == (type_, nullable)


@pytest.mark.parametrize(
    "prop",
    [
        {"$ref": "#/components/schemas/Node"},
        {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        {"allOf": [{"$ref": "#/components/schemas/Node"}]},
    ],
)
def test_a_recursive_field_is_reported_not_followed(prop: dict[str, Any]) -> None:
    (node,), _, findings = _read(_spec31({"parent": prop}))
    assert "parent" not in node.fields
    assert [(f.code, f.detail) for f in findings] == [
        ("recursive-schema", "field parent refers back to Node")
    ]


def test_a_large_self_referencing_spec_is_read_one_level_deep() -> None:
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for i in range(60):
        name = f"Thing{i}"
        ref = {"$ref": f"#/components/schemas/{name}"}
        schemas[name] = {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "parent": ref,
                "next": {"$ref": f"#/components/schemas/Thing{(i + 1) % 60}"},
            },
        }
        ok = {"200": {"content": {"application/json": {"schema": {"type": "array", "items": ref}}}}}
        one = {"200": {"content": {"application/json": {"schema": ref}}}}
        paths[f"/things{i}"] = {"get": {"responses": ok}}
        paths[f"/things{i}/{{id}}"] = {"get": {"responses": one}}
    colls, _, findings = _read({"openapi": "3.0.3", "paths": paths,
                                "components": {"schemas": schemas}})  # fmt: skip
    assert len(colls) == 60 and all(c.fields["next"].type == "json" for c in colls)
    assert len(findings) == 60 and {f.code for f in findings} == {"recursive-schema"}


PROJECT_REF = {"$ref": "#/components/schemas/Project"}
PROJECT = {
    "type": "object",
    "properties": {"slug": {"type": "string"}, "name": {"type": "string"}},
}


def _projects(
    create: dict[str, Any], id_param: str = "slug", project: dict[str, Any] = PROJECT
) -> Any:
    item = {"$ref": "#/components/schemas/Project"}
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": item}}}}
    listed = {"type": "array", "items": item}
    return _read({
        "openapi": "3.0.3",
        "info": {"title": "Projects", "version": "1"},
        "paths": {
            "/projects": {
                "get": {"responses": {"200": {"description": "ok", "content": {
                    "application/json": {"schema": listed}}}}},
                "post": create,
            },
            f"/projects/{{{id_param}}}": {
                "parameters": [{"name": id_param, "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "get": {"responses": ok},
            },
        },
        "components": {"schemas": {"Project": project}},
    })  # fmt: skip


def _body(*required: str) -> dict[str, Any]:
    schema = {**PROJECT, "required": list(required)}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


NO_CONTENT = {"204": {"description": "made"}}
LOCATED = {"201": {"description": "made", "headers": {"Location": {"schema": {"type": "string"}}}}}


@pytest.mark.parametrize(
    ("create", "methods", "client", "finding"),
    [
        ({"requestBody": _body("name"), "responses": NO_CONTENT}, {"GET"}, False, True),
        ({"requestBody": _body("name"), "responses": LOCATED}, {"GET", "POST"}, False, False),
        ({"requestBody": _body("slug", "name"), "responses": NO_CONTENT}, {"GET", "POST"}, True,
         False),
    ],
)  # fmt: skip
def test_a_create_answering_no_record_is_kept_only_when_its_record_can_be_found(
    create: dict[str, Any], methods: set[str], client: bool, finding: bool
) -> None:
    (coll,), rest, findings = _projects(create)
    assert (set(coll.methods), coll.id_client) == (methods, client)
    expected = [("/projects", "no-record-answer", "POST")] if finding else []
    assert [(f.path, f.code, f.method) for f in findings] == expected
    assert rest == []  # never proposed as an operation either


UNIQUE_NAME = {
    "type": "object",
    "properties": {"slug": {"type": "string", "readOnly": True},
                   "name": {"type": "string", "x-unique": True}},
}  # fmt: skip


@pytest.mark.parametrize(
    ("responses", "find_by"), [(NO_CONTENT, "name"), (LOCATED, None), ({"201": {
        "description": "made", "content": {"application/json": {"schema": PROJECT_REF}}}},
        None)],
)  # fmt: skip
def test_a_create_answering_no_record_is_found_by_a_field_the_spec_marks_unique(
    responses: dict[str, Any], find_by: str | None
) -> None:
    body = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}},
                }
            }
        },
    }
    (coll,), rest, findings = _projects({"requestBody": body, "responses": responses},
                                        project=UNIQUE_NAME)  # fmt: skip
    assert ("POST" in coll.methods, coll.find_by, coll.id_client) == (True, find_by, False)
    assert findings == [] and rest == []


@pytest.mark.parametrize(
    ("unique", "required"),
    [
        ({"slug": {"type": "string", "readOnly": True, "x-unique": True}}, ("name",)),
        ({"name": {"type": "string", "x-unique": True}}, ()),
    ],
    ids=["read-only", "optional"],
)
def test_a_unique_field_not_every_create_sends_finds_nothing(
    unique: dict[str, Any], required: tuple[str, ...]
) -> None:
    # A read-only one no create sends; an optional one a create may leave out.
    props = {"slug": {"type": "string"}, "name": {"type": "string"}, **unique}
    project = {"type": "object", "properties": props}
    (coll,), _, findings = _projects(
        {"requestBody": _body(*required), "responses": NO_CONTENT}, project=project
    )
    assert ("POST" in coll.methods, coll.find_by) == (False, None)
    assert [(f.code, f.method) for f in findings] == [("no-record-answer", "POST")]
    assert "x-unique" in findings[0].detail


def _wrapped(inner: Any, key: str = "project") -> dict[str, Any]:
    schema = {"type": "object", "required": [key], "properties": {key: inner}}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def test_a_create_body_of_one_key_holding_the_record_is_a_wrapped_write() -> None:
    inner = {"type": "object", "required": ["name"],
             "properties": {"name": {"type": "string"}, "slug": {"type": "string"}}}  # fmt: skip
    (coll,), _, _ = _projects({"requestBody": _wrapped(inner), "responses": LOCATED}, "id")
    assert coll.write_wrap == "project"
    assert set(coll.fields) == {"slug", "name"} and coll.required == frozenset({"name"})
    assert not any(c.write_only for c in coll.fields.values())


@pytest.mark.parametrize(
    "body",
    [
        _wrapped({"type": "string"}, "name"),  # a record field: a one-field create body
        _wrapped({"type": "string"}, "note"),  # a string, not an object of fields
        {"required": True, "content": {"application/json": {"schema": {  # not required
            "type": "object", "properties": {"project": PROJECT}}}}},
    ],
)  # fmt: skip
def test_other_one_key_bodies_are_not_wrapped(body: dict[str, Any]) -> None:
    (coll,), _, _ = _projects({"requestBody": body, "responses": LOCATED}, "id")
    assert coll.write_wrap is None


def _answer(schema: Any) -> dict[str, Any]:
    return {"201": {"description": "made", "content": {"application/json": {"schema": schema}}}}


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ({"type": "object", "properties": {"project": PROJECT_REF}}, "project"),
        (PROJECT_REF, None),  # bare, as reads
        ({"type": "object", "properties": {"project": PROJECT_REF, "meta": {}}}, None),
        ({"type": "object", "properties": {"other": {"type": "object"}}}, None),
    ],
)
def test_a_create_answering_under_a_key_says_so(answer: Any, key: str | None) -> None:
    (coll,), _, findings = _projects({"requestBody": _body("name"), "responses": _answer(answer)})
    assert coll.write_answer == key and "POST" in coll.methods and not findings


URLS = [
    "https://api.stripe.com", "https://api.stripe.com/", "https://api.example.com/v1.0/",
    "http://127.0.0.1:8000/api", "https://x:99999/a", "https://999.1.1.1/a", "https://x/a/../b",
    "https://x/a/./b", "https://x/a%20b", "https://x/a b", "https://x?q=1", "https://x/#f",
    "https://u:p@x/a", "http://[::1]/a", "https://é.example/a", "https://x/é", "ftp://x/y",
    "https://x/{version}/", "https://x/a;b=c", "https://x/a//b", "https://x/..",
]  # fmt: skip


@pytest.mark.parametrize("url", URLS)
def test_a_servers_path_reads_as_httpx_reads_it(url: str) -> None:
    try:
        expected: str | None = httpx.URL(url).path
    except httpx.InvalidURL:
        expected = None
    assert url_path(url) == expected
