"""Foreign records to protocol records and back."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from runtime.mapping import Field
from runtime.protocol import ProtocolError
from runtime.upstream import to_protocol, to_upstream

from .support import CARDS, NOTES

RAW_CARD = {
    "id": 7,
    "title": "Fix login",
    "list": 3,
    "tags": [1, "t2", {"id": 5}],
    "estimate": "12.50",
    "done": False,
    "created_at": "2026-07-30T00:00:00Z",
    "extra": "ignored",
}


def test_card_to_protocol() -> None:
    assert to_protocol(CARDS, RAW_CARD) == {
        "id": "7",
        "title": "Fix login",
        "list": "3",
        "tags": ["1", "t2", "5"],
        "estimate": 12.5,
        "done": False,
        "due": None,
        "created": "2026-07-30T00:00:00Z",
    }


def test_a_write_only_field_is_never_read_back_even_when_the_upstream_sends_it() -> None:
    assert "secret" not in to_protocol(CARDS, {**RAW_CARD, "secret": "s3cr3t"})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (4, 4),
        (4.5, 4.5),
        ("4", 4),
        ("4.0", 4),
        ("-0.25", -0.25),
        ("12345678901234567890", 12345678901234567890),
        ("n/a", "n/a"),
        ("nan", "nan"),
        (None, None),
    ],
)
def test_numbers_stay_numbers(raw: Any, expected: Any) -> None:
    assert to_protocol(CARDS, {"id": 1, "estimate": raw})["estimate"] == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(3, "3"), (3.0, "3"), ("lst_a", "lst_a"), ({"id": 9, "title": "x"}, "9"),
     ({"data": {"id": "z", "type": "lists"}}, "z"), (None, None), (True, None)],
)  # fmt: skip
def test_refs_are_string_ids(raw: Any, expected: Any) -> None:
    assert to_protocol(CARDS, {"id": 1, "list": raw})["list"] == expected


def test_list_refs_from_jsonapi_relationship() -> None:
    raw = {"id": 1, "tags": {"data": [{"id": "a", "type": "tags"}, {"id": 2}]}}
    assert to_protocol(CARDS, raw)["tags"] == ["a", "2"]


def test_nested_sources() -> None:
    raw = {"data": {"key": "n1"}, "attributes": {"title": "Hello"}, "relationships": {"list": 4}}
    assert to_protocol(NOTES, raw) == {"id": "n1", "title": "Hello", "list": "4"}


@pytest.mark.parametrize(
    "raw", [{"title": "no id"}, {"id": None}, {"id": ""}, {"id": True}, {"id": [1]}, ["a"]]
)
def test_record_without_usable_id_is_an_upstream_error(raw: Any) -> None:
    with pytest.raises(ProtocolError) as info:
        to_protocol(CARDS, raw)
    assert info.value.code == "upstream_error"


def test_to_upstream_renames_and_drops_what_cannot_be_written() -> None:
    body = {"title": "T", "created": "2020-01-01", "id": "9", "nope": 1, "list": "3", "tags": ["1"]}
    assert to_upstream(CARDS, body) == {"title": "T", "list": "3", "tags": ["1"]}


def test_to_upstream_sends_integer_refs_as_numbers_when_told() -> None:
    id_types = {"lists": "integer", "tags": "string"}
    body = {"list": "3", "tags": ["1", "x"]}
    assert to_upstream(CARDS, body, id_types=id_types) == {"list": 3, "tags": ["1", "x"]}
    assert to_upstream(CARDS, {"list": "abc"}, id_types=id_types) == {"list": "abc"}


def test_to_upstream_nests_and_wraps() -> None:
    assert to_upstream(NOTES, {"title": "Hi", "list": "4"}) == {
        "note": {"attributes": {"title": "Hi"}, "relationships": {"list": "4"}}
    }


def test_write_envelope_wraps_when_the_entity_does_not() -> None:
    assert to_upstream(CARDS, {"title": "T"}, envelope="data") == {"data": {"title": "T"}}
    assert to_upstream(NOTES, {"title": "T"}, envelope="data") == {
        "note": {"attributes": {"title": "T"}}
    }


def test_null_is_sent_as_null() -> None:
    assert to_upstream(CARDS, {"due": None, "list": None}) == {"due": None, "list": None}


SEVERITY = Field(
    name="severity", type="ref", entity="lists", source=("severity", "id"),
    write_source=("severity_id",),
)  # fmt: skip
ISSUES = dataclasses.replace(CARDS, fields={"title": CARDS.fields["title"], "severity": SEVERITY})


def test_a_nested_ref_is_read_from_its_id_and_written_to_its_column() -> None:
    raw = {"id": 4, "title": "T", "severity": {"id": 3, "name": "high"}}
    assert to_protocol(ISSUES, raw) == {"id": "4", "title": "T", "severity": "3"}
    sent = to_upstream(ISSUES, {"title": "T", "severity": "3"}, id_types={"lists": "integer"})
    assert sent == {"title": "T", "severity_id": 3}
    assert to_upstream(ISSUES, {"severity": None}) == {"severity_id": None}


def test_a_client_chosen_id_is_sent_at_its_source() -> None:
    slugged = dataclasses.replace(ISSUES, id_source=("slug",), id_client=True)
    assert to_upstream(slugged, {"id": "apollo", "title": "T"}) == {"slug": "apollo", "title": "T"}
    numbered = dataclasses.replace(slugged, id_type="integer")
    assert to_upstream(numbered, {"id": "7"}) == {"slug": 7}
    assert to_upstream(ISSUES, {"id": "apollo"}) == {}  # ids the upstream gives out: never sent
