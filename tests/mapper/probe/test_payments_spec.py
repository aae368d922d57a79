"""A payments-style spec, probed offline: every route mapped or unmapped with a true reason.

Detail reads answer ``anyOf[record, deleted stub]``, writes take form bodies (sent as
forms: ``bodyEncoding: form``), updates are POSTs on the record's path, GET and DELETE
declare empty form bodies, lists page by the last record's id.
"""

from __future__ import annotations

from typing import Any

import pytest

from .fragments import (
    EMPTY_FORM,
    accounting,
    answers,
    deleted,
    expandable,
    form,
    listing,
    mapping,
    read,
    record,
    ref,
    spec,
)

SCHEMAS = {
    "customer": record(
        "customer", name={"type": "string"}, email={"type": "string"},
        test_clock=expandable("test_clock"),
    ),
    "deleted_customer": deleted("customer"),
    "charge": record(
        "charge", amount={"type": "integer"}, customer=expandable("customer", "deleted_customer"),
        application=expandable("application"), source=expandable("card", "bank_account"),
        refunded_by={"type": "array", "items": expandable("customer")},
    ),
    "application": record("application"),
    "card": record("card"),
    "bank_account": record("bank_account"),
    "test_clock": record("test_clock"),
}  # fmt: skip
WRITE = form(name={"type": "string"}, email={"type": "string"})
PATHS = {
    "/v1/customers": {
        "get": listing(ref("customer")),
        "post": {"requestBody": WRITE, "responses": answers(ref("customer"))},
    },
    "/v1/customers/{customer}": {
        "get": read({"anyOf": [ref("customer"), ref("deleted_customer")]}),
        "post": {"requestBody": WRITE, "responses": answers(ref("customer"))},
        "delete": {"requestBody": EMPTY_FORM, "responses": answers(ref("deleted_customer"))},
    },
    "/v1/customers/{customer}/discount": {
        "delete": {"requestBody": EMPTY_FORM, "responses": answers({"type": "object"})},
    },
    "/v1/charges": {"get": listing(ref("charge"))},
    "/v1/charges/{charge}": {"get": read(ref("charge"))},
    "/v1/charges/{charge}/capture": {
        "post": {"requestBody": form(amount={"type": "integer"}), "responses": answers({})}
    },
    "/v1/balance": {"get": read({"type": "object", "properties": {"amount": {"type": "integer"}}})},
}
EXPECTED = {
    ("GET", "/v1/customers"): "read",
    ("POST", "/v1/customers"): "create",
    ("GET", "/v1/customers/{}"): "read",
    ("POST", "/v1/customers/{}"): "update",
    ("DELETE", "/v1/customers/{}"): "delete",
    ("DELETE", "/v1/customers/{}/discount"): "operation",
    ("GET", "/v1/charges"): "read",
    ("GET", "/v1/charges/{}"): "read",
    ("POST", "/v1/charges/{}/capture"): "operation",
    ("GET", "/v1/balance"): "operation",
}


@pytest.fixture(scope="module")
def mapped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return mapping(spec(PATHS, SCHEMAS), tmp_path_factory.mktemp("payments"))


def test_every_route_is_mapped_or_unmapped_with_its_reason(mapped: dict[str, Any]) -> None:
    assert accounting(mapped) == EXPECTED


def test_the_detail_union_with_a_deleted_stub_does_not_hide_the_record(
    mapped: dict[str, Any],
) -> None:
    customers = mapped["entities"]["customers"]
    assert customers["id"] == {"source": "id", "type": "string"}
    assert list(customers["fields"]) == ["object", "name", "email", "test_clock"]
    assert not any(u["reason"].startswith(("ambiguous-id", "polymorphic"))
                   for u in mapped.get("unmapped", []))  # fmt: skip


def test_form_writes_are_sent_as_forms_and_updates_as_posts(mapped: dict[str, Any]) -> None:
    assert mapped["upstream"]["bodyEncoding"] == "form"
    customers = mapped["entities"]["customers"]
    assert customers["write"] == {"update": "POST"}
    assert [n for n, f in customers["fields"].items() if f.get("required")] == []
    assert "unmapped" not in mapped
    capture = next(o for o in mapped["operations"] if o["request"]["path"].endswith("/capture"))
    assert capture["request"]["send"] == "body" and capture["params"]["amount"]["type"] == "number"


@pytest.mark.parametrize(
    ("name", "method", "expected"),
    [
        ("balance", "GET", {"readOnly": True, "destructive": False, "send": "query",
                            "params": {"expand": "json"}}),
        ("discount-customer", "DELETE", {"readOnly": None, "destructive": True, "send": "none",
                                         "params": {"customer": "ref"}}),
    ],
)  # fmt: skip
def test_an_empty_form_body_is_no_body(
    mapped: dict[str, Any], name: str, method: str, expected: dict[str, Any]
) -> None:
    op = next(o for o in mapped["operations"] if o["name"] == name)
    assert op["request"]["method"] == method
    found = {
        "readOnly": op.get("readOnly"), "destructive": op["destructive"],
        "send": op["request"]["send"], "params": {n: p["type"] for n, p in op["params"].items()},
    }  # fmt: skip
    assert found == expected


def test_lists_page_by_the_last_record_id(mapped: dict[str, Any]) -> None:
    assert mapped["upstream"]["pagination"] == {
        "style": "cursor", "size": "limit", "cursor": "starting_after", "items": "data",
        "nextFrom": "id", "more": "has_more", "maxSize": 100,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("field", "type_", "entity", "note"),
    [
        ("customer", "ref", "customers", "an id unless asked to expand it"),
        ("refunded_by", "list<ref>", "customers", "an id unless asked to expand it"),
        ("application", "json", None, "not a ref: no mapped entity lists them"),
        ("source", "json", None, "not a ref: 2 kinds of record"),
    ],
)
def test_expandable_fields(
    mapped: dict[str, Any], field: str, type_: str, entity: str | None, note: str
) -> None:
    found = mapped["entities"]["charges"]["fields"][field]
    assert (found["type"], found.get("entity")) == (type_, entity)
    assert note in found["note"]


def test_summaries_are_plain_text(mapped: dict[str, Any]) -> None:
    assert mapped["entities"]["charges"]["summary"] == "Returns a list of records."
