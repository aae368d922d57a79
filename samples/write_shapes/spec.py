"""The app's OpenAPI 3.1 document, made from `model.COLLECTIONS`.

Served at ``/meta/api-description.json`` (no well-known spec location) and advertised
only by ``Link: </meta/api-description.json>; rel="describedby"`` on ``GET /``. A field
kept unique says so with ``x-unique: true`` on the record schema's property (OpenAPI
and JSON Schema have no standard keyword for a value unique across a collection).
"""

from __future__ import annotations

from typing import Any

from .model import COLLECTIONS, Collection, Field

SPEC_PATH = "/meta/api-description.json"
PER_PAGE_MAX = 100
ERRORS = {"$ref": "#/components/schemas/FieldErrors"}


def _property(f: Field) -> dict[str, Any]:
    schema: dict[str, Any]
    if f.type == "date":
        schema = {"type": "string", "format": "date"}
    elif f.type == "datetime":
        schema = {"type": "string", "format": "date-time"}
    elif f.type == "enum":
        schema = {"type": "string", "enum": list(f.values)}
    else:
        schema = {"type": f.type}
    if f.max is not None:
        schema["maxLength"] = f.max
    if f.nullable:
        schema["type"] = [schema["type"], "null"]
    if f.read_only:
        schema["readOnly"] = True
    return schema


def _record(c: Collection) -> dict[str, Any]:
    props: dict[str, Any] = {"id": {"type": "integer", "readOnly": True}}
    for name, f in c.fields.items():
        props[name] = _property(f) | ({"x-unique": True} if f.unique else {})
    return {"type": "object", "required": ["id", *c.fields], "properties": props}


def _input(c: Collection, *, create: bool) -> dict[str, Any]:
    props = {n: _property(f) for n, f in c.fields.items() if not f.read_only}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    needed = [n for n, f in c.fields.items() if f.required and not f.read_only]
    if create and needed:
        schema["required"] = needed
    return schema


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _wrapped(c: Collection, schema: dict[str, Any]) -> dict[str, Any]:
    if c.wrap is None:
        return schema
    return {"type": "object", "required": [c.wrap], "properties": {c.wrap: schema},
            "additionalProperties": False}  # fmt: skip


def _refused() -> dict[str, Any]:
    return {
        "description": "The body is invalid: the errors of each field",
        "content": _json(ERRORS),
    }


def _paths(c: Collection) -> dict[str, Any]:
    record = {"$ref": f"#/components/schemas/{c.schema}"}
    new = {"$ref": f"#/components/schemas/{c.schema}Create"}
    changes = {"$ref": f"#/components/schemas/{c.schema}Changes"}
    filters = [
        {"name": n, "in": "query", "required": False, "schema": _property(f),
         "description": f"only the records whose {n} is exactly this"}
        for n, f in c.fields.items() if f.filter
    ]  # fmt: skip
    paging = [
        {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1}},
        {"name": "per_page", "in": "query",
         "schema": {"type": "integer", "minimum": 1, "maximum": PER_PAGE_MAX, "default": 10}},
    ]  # fmt: skip
    listed = {
        "description": "One page of records, by id",
        "headers": {
            "Link": {"schema": {"type": "string"}, "description": 'the next page, rel="next"'},
            "X-Total-Count": {"schema": {"type": "integer"}},
        },
        "content": _json({"type": "array", "items": record}),
    }
    created: dict[str, Any]
    if c.create == "location":
        created = {"201": {"description": "Created; read it at its Location",
                           "headers": {"Location": {"schema": {"type": "string"}}}}}  # fmt: skip
    elif c.create == "empty":
        created = {"204": {"description": "Created"}}
    else:
        created = {"201": {"description": "Created", "content": _json(_wrapped(c, record))}}
    one = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
    missing = {"description": "No such record"}
    title = c.schema.lower()
    return {
        f"/{c.name}": {
            "get": {"operationId": f"list_{c.name}", "summary": f"List {c.name}. {c.summary}",
                    "parameters": paging + filters, "responses": {"200": listed}},
            "post": {"operationId": f"create_{title}", "summary": f"Create a {title}",
                     "requestBody": {"required": True, "content": _json(_wrapped(c, new))},
                     "responses": {**created, "422": _refused()}},
        },
        f"/{c.name}/{{id}}": {
            "parameters": [one],
            "get": {"operationId": f"get_{title}", "summary": f"Read a {title}",
                    "responses": {"200": {"description": "The record", "content": _json(record)},
                                  "404": missing}},
            "patch": {"operationId": f"update_{title}", "summary": f"Change a {title}",
                      "requestBody": {"required": True,
                                      "content": _json(_wrapped(c, changes))},
                      "responses": {"200": {"description": "The stored record",
                                            "content": _json(_wrapped(c, record))},
                                    "404": missing, "422": _refused()}},
            "delete": {"operationId": f"delete_{title}", "summary": f"Delete a {title}",
                       "responses": {"204": {"description": "Deleted"}, "404": missing}},
        },
    }  # fmt: skip


def document() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {
        "FieldErrors": {
            "type": "object",
            "description": "messages by field name (under the wrapping key for wrapped writes)",
            "additionalProperties": True,
        }
    }
    for c in COLLECTIONS:
        paths |= _paths(c)
        schemas[c.schema] = _record(c)
        schemas[f"{c.schema}Create"] = _input(c, create=True)
        schemas[f"{c.schema}Changes"] = _input(c, create=False)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Write shapes", "version": "1.0.0"},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }
