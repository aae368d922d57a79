"""A metadata API's listings -> collections and field claims (`sources._metadata`)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mapper.probe.live import ProbeClient
from mapper.probe.sources._metadata import COLLECTIONS_AND_FIELDS, claim_of, read_metadata

from ..fakes import BASE, Fake, json_response

MAPPED = {"lists", "cards"}


def item(kind: str, schema: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    column = {"is_nullable": True, **schema} if schema is not None else None
    return {"field": "f", "type": kind, "schema": column, "meta": meta}


# (name, field item, expected claim attributes, or the (reason, detail start) of a refusal)
CLAIMS: list[tuple[str, dict[str, Any], dict[str, Any] | tuple[str, str]]] = [
    ("text with a length", item("string", {"max_length": 200}, required=True),
     {"type": "string", "max": 200, "required": True, "wire": "string"}),
    ("a non-null column without default is required", item("text", {"is_nullable": False}),
     {"type": "string", "required": True, "max": None}),
    ("a default makes it optional",
     item("boolean", {"is_nullable": False, "default_value": False}),
     {"type": "boolean", "required": False}),
    ("integer", item("integer", {}), {"type": "number", "wire": "integer"}),
    ("decimal", item("decimal", {}), {"type": "number"}),
    ("date is a day key", item("date", {}), {"type": "string", "day_key": True, "max": 10}),
    ("timestamp", item("timestamp", {}), {"type": "datetime"}),
    ("json", item("json", {}), {"type": "json"}),
    ("auto primary key is read-only",
     item("integer", {"is_primary_key": True, "has_auto_increment": True, "is_nullable": False}),
     {"type": "number", "read_only": True, "required": False}),
    ("date-created is read-only, set by the server on create",
     item("timestamp", {}, special=["date-created"]),
     {"type": "datetime", "read_only": True, "server_sets": ("create",),
      "detail": "filled by the upstream on create (date-created)"}),
    ("date-updated is set by the server on update",
     item("timestamp", {}, special=["date-updated"]),
     {"read_only": True, "server_sets": ("update",)}),
    ("both specials: set on both writes",
     item("uuid", {}, special=["user-created", "user-updated"]),
     {"read_only": True, "server_sets": ("create", "update")}),
    ("a foreign key to a mapped collection is a ref",
     item("integer", {"foreign_key_table": "lists"}, special=["m2o"]),
     {"type": "ref", "entity": "lists", "wire": "integer"}),
    ("a foreign key to an unmapped one stays an id",
     item("uuid", {"foreign_key_table": "directus_users"}, special=["user-created"]),
     {"type": "string", "entity": None, "read_only": True, "server_sets": ("create",)}),
    ("choices are candidates without a rule",
     item("string", {}, interface="select-dropdown",
          options={"choices": [{"text": "Low", "value": "low"}, {"value": "high"}]}),
     {"type": "enum", "values": ("low", "high"), "closed": False}),
    ("choices kept by a validation rule are closed",
     {**item("string", {}, interface="select-dropdown", options={"choices": ["low", "high"]},
             validation={"f": {"_in": ["low", "high"]}})},
     {"type": "enum", "values": ("low", "high"), "closed": True}),
    ("o2m has no column", item("alias", None, special=["o2m"]),
     ("derived-field", "no column (o2m)")),
    ("m2m has no column", item("alias", None, special=["m2m"], interface="list-m2m"),
     ("derived-field", "no column (m2m)")),
    ("a presentation field has no column", item("alias", None, interface="presentation-divider",
                                                special=["alias", "no-data"]),
     ("derived-field", "no column (alias, no-data)")),
    ("hidden", item("string", {}, hidden=True), ("hidden-field", "hidden by the metadata")),
    ("hash", item("hash", {}), ("hidden-field", "a hashed value")),
    ("unknown type", item("strange", {}), ("no-schema", "a strange column")),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in CLAIMS], ids=[c[0] for c in CLAIMS])
def test_claims(spec: dict[str, Any], expected: dict[str, Any] | tuple[str, str]) -> None:
    claim = claim_of(spec, COLLECTIONS_AND_FIELDS, MAPPED)
    if isinstance(expected, tuple):
        assert isinstance(claim, tuple) and claim[0] == expected[0]
        assert claim[1].startswith(expected[1])
        return
    assert not isinstance(claim, tuple)
    assert claim.source == "metadata"
    assert {k: getattr(claim, k) for k in expected} == expected


COLLECTIONS = [
    {"collection": "directus_users", "meta": {"system": True}, "schema": {"name": "x"}},
    {"collection": "cards", "meta": {"system": False}, "schema": {"name": "cards"}},
    {"collection": "folder", "meta": {}, "schema": None},
    {"collection": "lists", "meta": None, "schema": {"name": "lists"}},
]
FIELDS = {
    "cards": [
        {"field": "id", "type": "integer", "meta": {},
         "schema": {"is_primary_key": True, "has_auto_increment": True}},
        {"field": "title", "type": "string", "meta": {"required": True},
         "schema": {"max_length": 20}},
        {"field": "list", "type": "integer", "meta": {"special": ["m2o"]},
         "schema": {"foreign_key_table": "lists"}},
    ],
    "lists": [{"field": "id", "type": "integer", "meta": {}, "schema": {"is_primary_key": True}}],
}  # fmt: skip


def _upstream(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if path == "/collections":
        return json_response({"data": COLLECTIONS})
    if path.startswith("/fields/"):
        return json_response({"data": FIELDS[path.rsplit("/", 1)[1]]})
    if path == "/relations/cards":
        relation = {"collection": "cards", "field": "list", "schema": {"on_delete": "CASCADE"}}
        return json_response({"data": [relation]})
    if path.startswith("/items/"):
        return json_response({"data": [{"id": 1}]})
    return json_response({"errors": [{"message": "Route doesn't exist."}]}, 404)


def test_a_listing_of_that_shape_is_read_whole() -> None:
    fake = Fake(_upstream)
    found = read_metadata(ProbeClient(BASE, {}, transport=fake.transport))
    assert found.read and found.listing == "/collections"
    by_name = {c.name: c for c in found.collections}
    assert sorted(by_name) == ["cards", "lists"]
    cards = by_name["cards"]
    assert (cards.path, cards.detail_path, cards.items_key) == ("/items/cards", "/items/cards/{id}",
                                                                "data")  # fmt: skip
    assert cards.required == frozenset({"title"})
    assert found.on_delete == {"cards": {"list": "cascade"}, "lists": {}}
    assert cards.fields["list"].type == "ref" and cards.fields["list"].entity == "lists"
    reasons = {(f.path, f.code) for f in found.findings}
    assert reasons == {
        ("/collections", "spec-document"),
        ("/items/directus_users", "system-collection"),
        ("/items/folder", "no-schema"),
    }
    assert ("GET", "/fields/directus_users") not in fake.log  # never asked about


@pytest.mark.parametrize(
    "body",
    [
        {"data": [{"name": "cards"}]},  # items do not name a collection
        {"data": [{"collection": "cards"}]},  # no meta/schema: not that shape
        {"items": [{"collection": "cards", "meta": {}, "schema": {}}]},  # another envelope
        [{"collection": "cards", "meta": {}, "schema": {}}],  # a bare list
        {"data": []},
    ],
)
def test_other_shapes_are_not_taken(body: Any) -> None:
    fake = Fake(lambda request: json_response(body))
    found = read_metadata(ProbeClient(BASE, {}, transport=fake.transport))
    assert not found.read and found.collections == [] and found.findings == []
    assert fake.log == [("GET", "/collections")]
