"""Validation answers in each upstream dialect become violations on protocol fields."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from runtime.mapping import Field
from runtime.protocol import ProtocolError
from runtime.upstream._violations import protocol_field, violations

from .support import CARDS, NOTES, client, reply

pytestmark = pytest.mark.anyio

V = tuple[str | None, str]

CASES: list[tuple[str, str, Any, list[V]]] = [
    ("drf fields", "drf", {"title": ["This field is required."], "due": ["Bad date."]},
     [("title", "This field is required."), ("due", "Bad date.")]),
    ("drf renamed source", "drf", {"created_at": ["Read only."]}, [("created", "Read only.")]),
    ("drf detail", "drf", {"detail": "Not allowed here."}, [(None, "Not allowed here.")]),
    ("drf non_field_errors", "drf", {"non_field_errors": ["Title and due clash."]},
     [(None, "Title and due clash.")]),
    ("drf list item", "drf", {"tags": {"0": ["Invalid pk \"x\" - object does not exist."]}},
     [("tags", "Invalid pk \"x\" - object does not exist.")]),
    ("drf bare list", "drf", ["Nope."], [(None, "Nope.")]),
    ("pydantic errors in a wrapper, any dialect", "plain",
     {"exception_message": "Invalid request received.",
      "exception_detail": [{"type": "missing", "loc": ["body", "title"], "msg": "Field required"},
                           {"type": "list_type", "loc": ["body", "tags"],
                            "msg": "Input should be a valid list"}],
      "request_body": {"tags": {"a": 1}}},
     [("title", "Field required"), ("tags", "Input should be a valid list")]),
    ("FastAPI's detail list", "drf",
     {"detail": [{"type": "missing", "loc": ["body", "created_at"], "msg": "Field required"},
                 {"type": "missing", "loc": ["query", "page"], "msg": "Field required"}]},
     [("created", "Field required"), ("page", "Field required")]),
    ("drf field named title stays a field", "drf", {"title": ["Too long."], "status": 400},
     [("title", "Too long.")]),
    ("rails flat", "rails", {"title": ["can't be blank"]}, [("title", "can't be blank")]),
    ("rails errors object", "rails", {"errors": {"title": ["can't be blank", "is too short"]}},
     [("title", "can't be blank"), ("title", "is too short")]),
    ("rails full messages", "rails", {"errors": ["Title can't be blank"]},
     [(None, "Title can't be blank")]),
    ("rails belongs_to name", "rails", {"list": ["must exist"]}, [("list", "must exist")]),
    ("rails internals hidden", "rails",
     {"status": 422, "error": "Unprocessable Entity", "exception": "#<ActiveRecord::X secret>",
      "traceback": {"Application Trace": ["app/models/card.rb:3"]}},
     [(None, "Unprocessable Entity")]),
    ("pocketbase data", "pocketbase",
     {"code": 400, "message": "Failed to create record.",
      "data": {"title": {"code": "validation_required", "message": "Cannot be blank."}}},
     [("title", "Cannot be blank.")]),
    ("pocketbase no data", "pocketbase", {"code": 400, "message": "Something failed.", "data": {}},
     [(None, "Something failed.")]),
    ("jsonapi pointers", "jsonapi",
     {"errors": [{"source": {"pointer": "/data/attributes/title"}, "detail": "can't be blank"},
                 {"title": "Invalid request"}]},
     [("title", "can't be blank"), (None, "Invalid request")]),
    ("graphql errors with fields", "graphql",
     {"errors": [{"message": "Validation failed for field \"title\". Value is required.",
                  "extensions": {"field": "title", "type": "required",
                                 "code": "FAILED_VALIDATION"}},
                 {"message": "Invalid foreign key.",
                  "extensions": {"collection": None, "field": None,
                                 "code": "INVALID_FOREIGN_KEY"}}]},
     [("title", 'Validation failed for field "title". Value is required.'),
      (None, "Invalid foreign key.")]),
    ("graphql without errors falls back", "graphql", {"message": "Bad"}, [(None, "Bad")]),
    ("error object names its param", "error-object",
     {"error": {"type": "invalid_request_error", "code": "parameter_missing",
                "param": "title", "message": "Missing required param: title."}},
     [("title", "Missing required param: title.")]),
    ("error object param in form notation", "error-object",
     {"error": {"type": "invalid_request_error", "param": "tags[0]", "message": "No such tag"}},
     [("tags", "No such tag")]),
    ("error object without a param", "error-object",
     {"error": {"type": "api_error", "message": "Something broke"}}, [(None, "Something broke")]),
    ("error object absent falls back", "error-object", {"message": "Bad"}, [(None, "Bad")]),
    ("plain strings", "plain", ["Title is missing", "List is wrong"],
     [(None, "Title is missing"), (None, "List is wrong")]),
    ("plain string", "plain", "Bad things", [(None, "Bad things")]),
    ("plain message", "plain", {"message": "Invalid input"}, [(None, "Invalid input")]),
    ("plain field dict", "plain", {"title": "required"}, [("title", "required")]),
    ("unknown upstream field kept", "drf", {"colour": ["Bad."]}, [("colour", "Bad.")]),
    ("dialect mismatch falls back", "pocketbase", {"title": ["x"]}, [("title", "x")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "dialect", "body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_dialects(name: str, dialect: str, body: Any, expected: list[V]) -> None:
    entity = NOTES if dialect == "jsonapi" else CARDS  # JSON:API nests under attributes
    found = violations(dialect, body, entity=entity, clean=str.strip)
    assert [(v["field"], v["expected"]) for v in found] == expected
    assert all(v["code"] == "upstream_rejected" for v in found)


def test_nested_sources_and_wrapped_bodies_map_back() -> None:
    assert protocol_field(NOTES, ("attributes", "title")) == "title"
    assert protocol_field(NOTES, ("relationships", "list")) == "list"
    assert protocol_field(NOTES, ("note", "attributes", "title"), ("note",)) == "title"
    assert protocol_field(NOTES, ("data", "key")) == "id"
    assert protocol_field(None, ("a", "b")) == "a.b"


def test_jsonapi_pointer_escapes() -> None:
    body = {"errors": [{"source": {"pointer": "/data/attributes/a~1b"}, "detail": "x"}]}
    assert violations("jsonapi", body, entity=None, clean=str)[0]["field"] == "attributes.a/b"


def test_many_violations_are_capped() -> None:
    body = {f"f{i}": ["bad"] for i in range(500)}
    assert len(violations("drf", body, entity=None, clean=str)) == 50


@pytest.mark.parametrize(
    ("errors", "body", "field", "expected"),
    [
        ("drf", {"title": ["May not be blank."]}, "title", "May not be blank."),
        ("rails", {"errors": {"title": ["can't be blank"]}}, "title", "can't be blank"),
        ("pocketbase", {"data": {"title": {"code": "x", "message": "Cannot be blank."}}},
         "title", "Cannot be blank."),
        ("jsonapi", {"errors": [{"source": {"pointer": "/data/attributes/title"}, "detail": "no"}]},
         "title", "no"),
        ("plain", ["Title is required"], None, "Title is required"),
    ],
)  # fmt: skip
async def test_rejected_write_names_protocol_fields(
    errors: str, body: Any, field: str | None, expected: str
) -> None:
    entity = NOTES if errors == "jsonapi" else CARDS
    upstream, _ = client(reply(422, body), errors=errors)
    with pytest.raises(ProtocolError) as info:
        await upstream.create_record(entity, {"title": ""})
    error = info.value
    assert (error.code, error.status) == ("upstream_rejected", 400)
    assert error.extra["violations"][0] == {
        "code": "upstream_rejected",
        "field": field,
        "expected": expected,
    }
    assert error.extra["field"] == field


async def test_long_messages_are_cut() -> None:
    upstream, _ = client(reply(400, {"title": ["x" * 5000]}))
    with pytest.raises(ProtocolError) as info:
        await upstream.create_record(CARDS, {"title": "y"})
    assert len(info.value.extra["violations"][0]["expected"]) <= 200


def test_problem_details_title_is_not_a_field() -> None:
    body = {"type": "about:blank", "title": "Bad Request", "status": 400, "detail": "Bad due."}
    found = violations("plain", body, entity=CARDS, clean=str)
    assert [(v["field"], v["expected"]) for v in found] == [(None, "Bad due.")]
    found = violations("drf", body, entity=CARDS, clean=str)
    assert [(v["field"], v["expected"]) for v in found] == [(None, "Bad due.")]


def test_a_path_above_several_fields_is_not_guessed() -> None:
    assert protocol_field(NOTES, ("attributes",)) == "title"  # the only field under it
    body = Field(name="body", type="string", source=("attributes", "body"))
    two = dataclasses.replace(NOTES, fields={**NOTES.fields, "body": body})
    assert protocol_field(two, ("attributes",)) == "attributes"


def test_rails_names_the_association_of_a_foreign_key_column() -> None:
    column = Field(name="list", type="ref", entity="lists", source=("list_id",))
    entity = dataclasses.replace(CARDS, fields={"list": column})
    assert protocol_field(entity, ("list",)) == "list"
    assert protocol_field(entity, ("list_id",)) == "list"


def test_a_refusal_of_the_write_name_names_the_field() -> None:
    nested = Field(
        name="severity", type="ref", entity="lists", source=("severity", "id"),
        write_source=("severity_id",),
    )  # fmt: skip
    entity = dataclasses.replace(CARDS, fields={"severity": nested})
    assert protocol_field(entity, ("severity_id",)) == "severity"
    assert protocol_field(entity, ("severity",)) == "severity"  # Rails names the association
