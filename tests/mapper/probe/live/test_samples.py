"""Envelopes and value claims from live answers (recorded or written like real ones)."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.live._samples import envelope_of, jsonapi_targets, records_of, sample_claims
from mapper.probe.live._values import sample_claim

from ..fakes import payload

JSONAPI = {
    "data": [
        {
            "type": "cards",
            "id": "1",
            "attributes": {"title": "A"},
            "relationships": {
                "list": {"data": {"type": "lists", "id": "7"}},
                "tags": {"data": [{"type": "tags", "id": "2"}]},
            },
        },
    ],
    "links": {"next": None},
    "meta": {"total": 1},
}


@pytest.mark.parametrize(
    ("body", "content_type", "items", "total", "next_", "jsonapi"),
    [
        (payload("drf-cards-page.json"), "application/json", "results", "count", "next", False),
        ([{"id": 1}], "application/json", "", None, None, False),
        (
            {"page": 1, "perPage": 30, "totalItems": 2, "totalPages": 1, "items": [{"id": "a"}]},
            "application/json",
            "items",
            "totalItems",
            None,
            False,
        ),
        (JSONAPI, "application/vnd.api+json", "data", "meta.total", "links.next", True),
        (
            {**JSONAPI, "meta": {}, "links": {}},  # JSON:API without its media type
            "application/json",
            "data",
            None,
            None,
            True,
        ),
        (  # Stripe's products: `type`, `id` and a list named `attributes`; not JSON:API
            {
                "object": "list",
                "has_more": False,
                "data": [
                    {"id": "prod_1", "object": "product", "type": "service", "attributes": []}
                ],
            },
            "application/json",
            "data",
            None,
            None,
            False,
        ),
        (
            {"widgets": [{"id": 1}], "cursor": "abc"},
            "application/json",
            "widgets",
            None,
            None,
            False,
        ),
    ],
)
def test_envelopes(
    body: Any, content_type: str, items: str, total: Any, next_: Any, jsonapi: bool
) -> None:
    envelope = envelope_of(body, content_type)
    assert envelope is not None
    assert (envelope.items, envelope.total, envelope.next, envelope.jsonapi) == (
        items,
        total,
        next_,
        jsonapi,
    )
    assert records_of(body, envelope)


@pytest.mark.parametrize("body", [{"detail": "x"}, {"a": [1, 2]}, "text", None, {"a": [], "b": []}])
def test_not_a_list_answer(body: Any) -> None:
    assert envelope_of(body) is None


def test_jsonapi_records_flatten_to_dotted_sources() -> None:
    claims = sample_claims(JSONAPI["data"], jsonapi=True)
    assert list(claims) == [
        "id",
        "attributes.title",
        "relationships.list.data.id",
        "relationships.tags.data",
    ]
    assert jsonapi_targets(JSONAPI["data"]) == {
        "relationships.list.data.id": "lists",
        "relationships.tags.data": "tags",
    }


@pytest.mark.parametrize(
    ("values", "type_", "extra"),
    [
        (["2026-01-01T10:00:00Z", "2026-02-03T04:05:06.123+02:00", None], "datetime", {}),
        (["2026-01-01", "2026-12-31", None], "string", {"day_key": True, "max": 10}),
        (["2026-13-01"], "string", {"day_key": False}),
        (["1.50", "2.00"], "string", {"wire": "numeric"}),
        (["https://x.test/a/1/"], "string", {"wire": "url"}),
        (
            ["low", "high", "low", "low", "high", "medium", "low", "high", "medium"],
            "enum",
            {"values": ("high", "low", "medium"), "closed": False},
        ),
        (["a", "b", "c", "d", "e", "f"], "string", {}),
        ([1, 2.5], "number", {"wire": "number"}),
        ([1, 2], "number", {"wire": "integer"}),
        ([True, False], "boolean", {}),
        ([[1, 2], []], "json", {"wire": "array:integer"}),
        ([{"a": 1}], "json", {"wire": "object"}),
        ([1, "a"], "json", {"wire": "mixed"}),
    ],
)
def test_value_claims(values: list[Any], type_: str, extra: dict[str, Any]) -> None:
    claim = sample_claim(values)
    assert claim is not None and claim.type == type_
    for key, value in extra.items():
        assert getattr(claim, key) == value


def test_all_null_tells_nothing() -> None:
    assert sample_claim([None, None]) is None
