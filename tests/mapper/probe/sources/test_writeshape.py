"""Write shapes read from a spec: a body wrapped under one key, fields marked unique."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.sources._schema import Resolver
from mapper.probe.sources._writeshape import unique_fields, wrapped_body

CARD = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "code": {"type": "string", "x-unique": True}},
}
RESOLVER = Resolver({"components": {"schemas": {"Card": CARD}}})
CARD_REF = {"$ref": "#/components/schemas/Card"}


def _one(key: str, inner: Any, required: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": {key: inner}, "required": [key] if required else []}


def test_one_required_key_holding_an_object_of_fields_is_a_wrapping_key() -> None:
    assert wrapped_body(_one("card", CARD_REF), {"title", "code"}, RESOLVER) == ("card", CARD_REF)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (_one("card", CARD_REF, required=False), "the key is optional"),
        (_one("title", CARD_REF), "records show the key: a one-field body"),
        (_one("card", {"type": "string"}), "the key holds no object"),
        (_one("card", {"type": "object"}), "the object declares no field"),
        ({"type": "object", "properties": {"card": CARD_REF, "note": {"type": "string"}},
          "required": ["card"]}, "two keys"),
        (_one("card", {"$ref": "#/components/schemas/Missing"}), "an unresolvable ref"),
    ],
)  # fmt: skip
def test_other_bodies_are_not_wrapped(body: dict[str, Any], why: str) -> None:
    assert wrapped_body(body, {"title", "code"}, RESOLVER) is None, why


def test_unique_fields_are_those_marked_x_unique_through_refs() -> None:
    assert unique_fields(CARD_REF, RESOLVER) == ["code"]
    assert (
        unique_fields({"type": "object", "properties": {"a": {"type": "string"}}}, RESOLVER) == []
    )
    assert unique_fields({"$ref": "#/components/schemas/Missing"}, RESOLVER) == []
