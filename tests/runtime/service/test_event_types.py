"""Which entities an event type carries: a trigger's entity, the feed's per entity."""

from __future__ import annotations

from pathlib import Path

from runtime.mapping import load_mapping_text
from runtime.service import carried_entities

ROOT = Path(__file__).resolve().parents[3]
KANBAN_TEXT = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
ENV = {"KANBAN_URL": "http://127.0.0.1:9", "KANBAN_TOKEN": "x"}
SERVE = """serve:
  feed: {entities: [cards, lists]}
  triggers:
    - {type: board.stale, entity: cards, filter: done = false}
    - {type: board.stale, entity: lists, filter: title != ""}
"""


def test_trigger_and_feed_types_name_the_entities_they_carry() -> None:
    text = KANBAN_TEXT.replace("serve:\n", SERVE, 1)
    carried = carried_entities(load_mapping_text(text, env=ENV))
    assert carried["board.stale"] == {"cards", "lists"}
    assert carried["cards.created"] == carried["cards.deleted"] == {"cards"}
    assert carried["lists.updated"] == {"lists"}
    assert "invoice.paid" not in carried


def test_a_mapping_without_triggers_or_feed_carries_nothing() -> None:
    assert carried_entities(load_mapping_text(KANBAN_TEXT, env=ENV)) == {}
