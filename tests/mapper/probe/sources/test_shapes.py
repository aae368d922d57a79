"""Record schemas, expandable fields, dropped fields, names and summaries of spec collections."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe._text import plain
from mapper.probe.sources._collections import group
from mapper.probe.sources._collnames import distinct_names
from mapper.probe.sources._openapi import read_routes
from mapper.probe.sources._schema import Resolver
from mapper.probe.sources._shapes import Expansion, expansions
from mapper.probe.sources._specload import SpecDoc

from ..fragments import answers, deleted, expandable, record, ref, spec

SCHEMAS = {
    "customer": record("customer", name={"type": "string"}),
    "full_customer": record("full_customer", name={"type": "string"}, notes={"type": "string"}),
    "deleted_customer": deleted("customer"),
    "vendor": record("vendor", code={"type": "integer"}),
    "node": record("node", parent=ref("node"), label={"type": "string"}),
    "card": record("card"),
}
UNION = {"anyOf": [ref("customer"), ref("deleted_customer")]}


def _group(item: Any, detail: Any, schemas: dict[str, Any] = SCHEMAS) -> Any:
    listing = {"get": {"responses": answers({"type": "array", "items": item})}}
    doc = spec({"/customers": listing, "/customers/{id}": {"get": {"responses": answers(detail)}}},
               schemas)  # fmt: skip
    return group(read_routes(SpecDoc(doc, "s", "openapi")))


@pytest.mark.parametrize(
    ("item", "detail", "fields"),
    [
        (ref("customer"), UNION, ["id", "object", "name"]),  # the list item, not the union
        (ref("customer"), ref("full_customer"), ["id", "object", "name"]),
        ({"type": "object"}, UNION, ["id", "object", "name"]),  # the union's live branch
        (UNION, UNION, ["id", "object", "name"]),
        ({"type": "object"}, {"anyOf": [ref("customer"), ref("vendor")]}, []),
    ],
)
def test_the_record_schema(item: Any, detail: Any, fields: list[str]) -> None:
    (coll,), _, findings = _group(item, detail)
    assert list(coll.fields) == fields
    assert [f.code for f in findings] == ([] if fields else ["polymorphic"])


def test_a_recursive_field_is_dropped_by_name_not_the_route() -> None:
    (coll,), _, findings = _group(ref("node"), ref("node"))
    assert list(coll.fields) == ["id", "object", "label"]
    assert [(f.path, f.method, f.reason) for f in findings] == [
        ("/customers", None, "recursive-schema: field parent refers back to node")
    ]


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        (expandable("customer"), Expansion("ref", ("#/components/schemas/customer",))),
        (expandable("customer", "deleted_customer"),
         Expansion("ref", ("#/components/schemas/customer",))),
        (expandable("customer", "card"),
         Expansion("ref", ("#/components/schemas/customer", "#/components/schemas/card"))),
        ({"type": "array", "items": expandable("card")},
         Expansion("list<ref>", ("#/components/schemas/card",))),
        ({"anyOf": [ref("customer"), ref("card")],
          "x-expansionResources": {"oneOf": [ref("customer")]}}, None),  # never a plain id
        ({"anyOf": [{"type": "string"}, ref("card")]}, None),  # the spec names no expansion
        (ref("customer"), None),
    ],
)  # fmt: skip
def test_expandable_fields(node: Any, expected: Expansion | None) -> None:
    item = {"type": "object", "properties": {"f": node}}
    found = expansions(item, Resolver({"components": {"schemas": SCHEMAS}}))
    assert found.get("f") == expected


@pytest.mark.parametrize(
    ("paths", "names"),
    [
        (["/v1/accounts", "/v1/financial_connections/accounts"],
         ["accounts", "financial_connections_accounts"]),
        (["/v1/issuing/transactions", "/v1/treasury/transactions"],
         ["issuing_transactions", "treasury_transactions"]),
        (["/v1/disputes", "/v1/issuing/disputes", "/v1/charges"],
         ["disputes", "issuing_disputes", "charges"]),
        (["/a/b/items", "/c/b/items"], ["a_b", "c_b"]),
        (["/x/cards", "/x_cards", "/y/x/cards"], ["cards", "x_cards", "y_x_cards"]),
        (["/cards", "/a/cards", "/a_cards"], ["cards", "a_cards_2", "a_cards"]),
    ],
)  # fmt: skip
def test_colliding_collection_names(paths: list[str], names: list[str]) -> None:
    found = distinct_names(paths)
    assert [found[p] for p in paths] == names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<p>Returns a list of <a href='/docs/connect'>Connect</a> accounts.</p>",
         "Returns a list of Connect accounts."),
        ("<p>One.</p><p>Two &amp; three.</p>", "One. Two & three."),
        ("Counts where a < b and c > d", "Counts where a < b and c > d"),
        ("<p></p>", None),
        (None, None),
    ],
)  # fmt: skip
def test_plain_text(text: str | None, expected: str | None) -> None:
    assert plain(text) == expected
