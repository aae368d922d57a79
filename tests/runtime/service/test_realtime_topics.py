"""Realtime topics: parsing (`<entity>/*`, `<entity>/<id>`, options), refusals at subscribe
time, and which changes a topic takes with what record."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from runtime.mapping import load_mapping_text
from runtime.protocol import ProtocolError
from runtime.service._realtime_topics import ALL, entity_part, parse_topic
from runtime.store import FeedAction, FeedChange

ROOT = Path(__file__).resolve().parents[3]
ENV = {"KANBAN_URL": "http://kanban.test", "KANBAN_TOKEN": "t"}
MAPPING = load_mapping_text((ROOT / "mappings" / "conformance-kanban.yaml").read_text(), env=ENV)
ENTITIES = MAPPING.entities
CARD = {"id": "c1", "title": "Write", "list": "l1", "priority": "high", "due": "",
        "done": False, "created": "2030-01-01 00:00:00.000Z"}  # fmt: skip


def _with(query: dict[str, Any], **other: Any) -> str:
    return "?options=" + quote(json.dumps({"query": query, **other}))


def _change(
    action: FeedAction = "update", entity: str = "cards", record_id: str = "c1"
) -> FeedChange:
    record = None if action == "delete" else CARD
    return FeedChange(7, "a", entity, action, record_id, record, datetime.now(UTC))


def test_every_record_and_one_record() -> None:
    every = parse_topic("cards/*", ENTITIES)
    assert (every.entity.name, every.record_id, every.filter, every.fields) == (
        "cards", ALL, None, (),
    )  # fmt: skip
    assert parse_topic("cards/c1", ENTITIES).record_id == "c1"
    # PocketBase's deprecated bare collection name means every record
    assert parse_topic("cards", ENTITIES).record_id == ALL
    assert entity_part("lists/x?options=%7B%7D") == "lists"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("nope/*", "unknown_entity"),
        ("cards/a/b", "invalid_query"),
        ("cards/*?other=1", "invalid_query"),
        ("cards/*?options=notjson", "invalid_query"),
        ("cards/*" + _with({"expand": "list"}), "invalid_query"),
        ("cards/*" + _with({"filter": 3}), "invalid_query"),
        ("cards/*" + _with({"filter": "title ="}), "invalid_filter"),
        ("cards/*" + _with({"filter": "nosuch = 1"}), "invalid_filter"),
        ("cards/*" + _with({"fields": "id,nosuch"}), "invalid_filter"),
    ],
)
def test_a_bad_topic_is_refused_at_subscribe_time(raw: str, code: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_topic(raw, ENTITIES)
    assert refused.value.code == code, refused.value.message


def test_headers_beside_the_query_are_accepted() -> None:
    topic = parse_topic("cards/*" + _with({"filter": "done = false"}, headers={"a": "b"}), ENTITIES)
    assert topic.filter_text == "done = false"


def test_a_topic_takes_its_entity_and_record_only() -> None:
    every, one = parse_topic("cards/*", ENTITIES), parse_topic("cards/c2", ENTITIES)
    assert every.message(_change(), CARD) == {"action": "update", "record": CARD}
    assert every.message(_change(entity="lists"), CARD) is None
    assert one.message(_change(), CARD) is None
    assert one.message(_change(record_id="c2"), {**CARD, "id": "c2"}) is not None


def test_the_filter_is_evaluated_on_the_record() -> None:
    raw = "cards/*" + _with({"filter": 'priority = "high" && done = false'})
    topic = parse_topic(raw, ENTITIES)
    assert topic.raw == raw
    assert topic.message(_change("create"), CARD) == {"action": "create", "record": CARD}
    assert topic.message(_change(), {**CARD, "done": True}) is None
    assert topic.message(_change(), {**CARD, "priority": "low"}) is None


def test_a_delete_without_its_record_passes_no_filter() -> None:
    filtered = parse_topic("cards/*" + _with({"filter": "done = false"}), ENTITIES)
    plain = parse_topic("cards/*", ENTITIES)
    gone = {"id": "c1"}
    assert filtered.message(_change("delete"), gone) is None
    assert plain.message(_change("delete"), gone) == {"action": "delete", "record": gone}
    # with the record as it was, the filter decides as for any change
    assert filtered.message(_change("delete"), CARD) == {"action": "delete", "record": CARD}


def test_fields_project_the_record() -> None:
    topic = parse_topic("cards/*" + _with({"fields": "id,title"}), ENTITIES)
    assert topic.message(_change(), CARD) == {
        "action": "update", "record": {"id": "c1", "title": "Write"},
    }  # fmt: skip
