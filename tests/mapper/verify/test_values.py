"""Synthesised values pass the runtime's guard; read-backs compare as declared types."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mapper.verify._ledger import RUN_MARK
from mapper.verify._values import (
    NO_VALUE,
    OUTSIDE_ENUM,
    body_for,
    guard,
    same,
    sampled_shapes,
    scalar,
    type_violation,
)
from runtime.mapping import Field
from runtime.protocol import check

from .fake import mapping

FIELDS = [
    Field("title", "string", ("title",), max=12),
    Field("due", "string", ("due",), day_key=True),
    Field("count", "number", ("count",)),
    Field("done", "boolean", ("done",)),
    Field("at", "datetime", ("at",)),
    Field("level", "enum", ("level",), values=("none", "low", "high")),
    Field("pair", "enum", ("pair",), values=("a", "b")),
    Field("kinds", "list<enum>", ("kinds",), values=("x", "y", "z")),
    Field("meta", "json", ("meta",)),
]


@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.type + ":" + f.name)
@pytest.mark.parametrize("variant", [0, 1])
def test_synthesised_values_pass_the_guard_and_variants_differ(field: Field, variant: int) -> None:
    value = scalar(field, variant=variant, n=3)
    assert not check({field.name: field}, {field.name: value}, require=True)
    other = scalar(field, variant=1 - variant, n=3)
    assert not same(field, value, other)


@pytest.mark.parametrize("kind", ["binary", "ref"])
def test_no_value_is_made_up_where_none_can_be(kind: str) -> None:
    assert scalar(Field("x", kind, ("x",), entity="cards"), variant=0, n=1) is NO_VALUE


def test_a_create_body_carries_the_run_marker_in_the_label() -> None:
    cards = mapping().entities["cards"]
    body = body_for(cards, run_id="0123456789", n=4, variant=0, refs={"list": "r1"})
    assert body["title"].startswith("a2v-0123456789 cards 4")
    assert body["list"] == "r1" and "created" not in body
    assert not guard(cards, body, create=True)


def test_values_keep_to_the_shape_stored_records_share() -> None:
    """Names stored in a slug's alphabet get slugs (the marker still ends at a word
    boundary); a JSON field that always holds a list gets a list."""
    cards = mapping().entities["cards"]
    cards = dataclasses.replace(
        cards, fields={**cards.fields, "tags": Field("tags", "json", ("tags",))}
    )
    stored = [{"title": "var_07_text", "tags": ["a"]}, {"title": "flow-2", "tags": []}]
    shapes = sampled_shapes(cards, stored)
    assert shapes == {"title": "slug", "tags": "list"}
    body = body_for(cards, run_id="0123456789", n=4, variant=1, refs={}, shapes=shapes)
    assert body["title"] == "a2v-0123456789-cards-4-upd"
    assert RUN_MARK.match(body["title"]) and isinstance(body["tags"], list)
    assert not guard(cards, body, create=True)
    # One free-text value, or one object, and the mapping's own shapes stand.
    mixed = [*stored, {"title": "Free text", "tags": {"a": 1}}]
    assert sampled_shapes(cards, mixed) == {}


TEXT_SHAPES = [
    ("uuid", ["7c9e6679-7425-40de-944b-e07fc1f90ae7", "16fd2706-8baf-433b-82eb-8c7fada847da"]),
    ("ip", ["10.0.0.1", "2001:db8::1"]),
    ("email", ["ada@example.com", "grace@navy.mil"]),
    ("url", ["https://example.com/a", "http://example.org"]),
    ("slug", ["flow-2", "var_07"]),
]


@pytest.mark.parametrize(("shape", "stored"), TEXT_SHAPES, ids=[s for s, _ in TEXT_SHAPES])
def test_text_keeps_to_the_shape_every_stored_value_shows(shape: str, stored: list[str]) -> None:
    """A field stored as UUIDs, addresses, emails or URLs gets one; the field carrying the
    run marker never a shape that would drop it."""
    cards = mapping().entities["cards"]
    note = Field("note", "string", ("note",))
    cards = dataclasses.replace(cards, fields={**cards.fields, "note": note})
    records = [{"title": v, "note": v} for v in stored]
    shapes = sampled_shapes(cards, records)
    assert shapes.get("note") == shape
    # The marker's field: a UUID is in a slug's alphabet too; an address or a URL would
    # drop the marker or move it from the start, where sweeps match it.
    assert shapes.get("title") == {"uuid": "slug", "ip": None, "url": None}.get(shape, shape)
    body = body_for(cards, run_id="0123456789", n=4, variant=0, refs={}, shapes=shapes)
    assert sampled_shapes(cards, [{"note": body["note"]}]).get("note") == shape
    assert RUN_MARK.match(body["title"])


def test_the_guard_predicts_refusal_outside_a_closed_enum() -> None:
    cards = mapping().entities["cards"]
    [violation] = guard(cards, {"priority": OUTSIDE_ENUM}, create=False)
    assert violation.code == "invalid_enum"


SAME = [
    ("number", 7, 7.0, True),
    ("number", 7, "7", True),
    ("number", 7, 8, False),
    ("datetime", "2031-02-03T04:05:06Z", "2031-02-03T04:05:06+00:00", True),
    ("datetime", "2031-02-03T04:05:06Z", "2031-02-03T05:05:06+01:00", True),
    ("datetime", "2031-02-03T04:05:06Z", "2031-02-03T04:05:07Z", False),
    ("list<ref>", ["a", "b"], ["b", "a"], True),
    ("list<ref>", ["a"], [], False),
    ("ref", "12", 12, True),
    ("string", "x", "x ", False),
    ("string", None, "", True),
    ("boolean", True, False, False),
]


@pytest.mark.parametrize(("kind", "sent", "stored", "expected"), SAME)
def test_read_backs_compare_as_declared(kind: str, sent: Any, stored: Any, expected: bool) -> None:
    assert same(Field("f", kind, ("f",), values=("x",)), sent, stored) is expected


TYPED = [
    (Field("t", "string", ("t",), max=3), "abcd", "invalid_string"),
    (Field("t", "string", ("t",), max=3), "abc", None),
    (Field("d", "string", ("d",), day_key=True), "2026-13-01", "invalid_daykey"),
    (Field("n", "number", ("n",)), "many", "invalid_number"),
    (Field("b", "boolean", ("b",)), "yes", "invalid_boolean"),
    (Field("c", "datetime", ("c",), read_only=True), "yesterday", "invalid_date"),
    (Field("e", "enum", ("e",), values=("a",)), "b", "invalid_enum"),
    (Field("e", "enum", ("e",), values=("a",), values_closed=False), "b", None),
    (Field("r", "ref", ("r",), entity="x"), 5, "invalid_ref"),
    (Field("r", "list<ref>", ("r",), entity="x"), "5", "invalid_ref"),
    (Field("r", "list<ref>", ("r",), entity="x"), ["5"], None),
]


@pytest.mark.parametrize(("field", "stored", "code"), TYPED)
def test_stored_values_are_judged_by_the_guard(field: Field, stored: Any, code: str | None) -> None:
    found = type_violation(field, stored)
    assert (found.code if found else None) == code
