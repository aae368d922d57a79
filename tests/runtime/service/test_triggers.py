"""Declared triggers: matching records become occurrences, each stored once by its dedup key;
filters are checked against the entity; passes after writes are folded together."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from runtime.mapping import Entity, load_mapping_text
from runtime.mapping import Mapping as MappingModel
from runtime.protocol import ProtocolError
from runtime.query import EntityResolver, compile_filter, parse_filter
from runtime.service import Triggers, default_dedup_key, trigger_problems
from runtime.store import Store

ROOT = Path(__file__).resolve().parents[3]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
ENV = {"KANBAN_URL": "http://127.0.0.1:9", "KANBAN_TOKEN": "unused"}
TODAY = datetime.now(UTC).date()
DUE_SOON = """
  triggers:
    - type: card.due_soon
      entity: cards
      filter: 'due != "" && due <= @todayEnd && done = false'
      capability: summarize
    - {type: card.todo, entity: cards, filter: 'list = "list_todo"', payload: [title],
       dedupKey: [id]}
"""


def _mapping(triggers: str = DUE_SOON) -> MappingModel:
    return load_mapping_text(BASE.rstrip("\n") + "\n" + triggers, env=ENV)


def _day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


@dataclass
class Upstream:
    """The runtime's reads, over records held here: the filter evaluated as served."""

    mapping: MappingModel
    records: list[dict[str, Any]]
    calls: int = 0
    fail: bool = False

    async def listing(self, entity: Entity, query: Mapping[str, str]) -> dict[str, Any]:
        self.calls += 1
        if self.fail:
            raise ProtocolError("upstream_unavailable")
        match = compile_filter(
            parse_filter(query["filter"]), EntityResolver(entity, self.mapping.entities)
        )
        return {"items": [dict(r) for r in self.records if match(r)]}


@dataclass
class Plane:
    mapping: MappingModel
    store: Store
    upstream: Upstream = field(init=False)

    def __post_init__(self) -> None:
        self.upstream = Upstream(self.mapping, [
            {"id": "c_today", "title": "Today", "list": "list_todo", "due": _day(0), "done": False},
            {"id": "c_past", "title": "Past", "list": "list_doing", "due": _day(-3), "done": False},
            {"id": "c_next", "title": "Next", "list": "list_doing", "due": _day(1), "done": False},
            {"id": "c_done", "title": "Done", "list": "list_doing", "due": _day(0), "done": True},
            {"id": "c_none", "title": "None", "list": "list_doing", "due": None, "done": False},
        ])  # fmt: skip

    def triggers(self) -> Triggers:
        return Triggers(self, self.upstream)


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[Plane]:
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    try:
        yield Plane(_mapping(), store)
    finally:
        store.close()


def test_each_matching_record_is_an_occurrence_with_a_task(plane: Plane) -> None:
    assert asyncio.run(plane.triggers().evaluate()) == 3
    events = plane.store.events_since("conformance_kanban")
    assert [(e.type, e.payload["id"]) for e in events] == [
        ("card.due_soon", "c_today"), ("card.due_soon", "c_past"), ("card.todo", "c_today"),
    ]  # fmt: skip
    tasks = plane.store.list_tasks("conformance_kanban")
    assert [(t.capability, t.payload["id"], t.event_id) for t in tasks] == [
        ("summarize", "c_today", events[0].id), ("summarize", "c_past", events[1].id),
    ]  # fmt: skip
    # the payload subset: id and the listed fields
    assert events[2].payload == {"id": "c_today", "title": "Today"}
    assert events[0].dedup_key == default_dedup_key("card.due_soon", "summarize", events[0].payload)


def test_an_unchanged_match_raises_nothing_and_a_changed_one_raises_anew(plane: Plane) -> None:
    triggers = plane.triggers()
    asyncio.run(triggers.evaluate())
    assert asyncio.run(triggers.evaluate()) == 0
    plane.upstream.records[0]["title"] = "Today, renamed"
    # due_soon keys on the whole payload: a new occurrence; todo keys on id: none
    assert asyncio.run(triggers.evaluate()) == 1
    assert len(plane.store.list_tasks("conformance_kanban")) == 3
    assert [e.type for e in plane.store.events_since("conformance_kanban")][-1] == "card.due_soon"


def test_the_default_dedup_key_is_the_references() -> None:
    canonical = '{"capability":"summarize","payload":{"id":"c1"},"type":"card.due_soon"}'
    expected = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert default_dedup_key("card.due_soon", "summarize", {"id": "c1"}) == expected


def test_writes_during_a_pass_fold_into_one_more(plane: Plane) -> None:
    triggers = plane.triggers()

    async def burst() -> None:
        for _ in range(5):
            triggers.after_write()
        await triggers.settled()

    asyncio.run(burst())
    # two triggers per pass; the five writes ask for at most two passes
    assert plane.upstream.calls in (2, 4)
    assert len(plane.store.events_since("conformance_kanban")) == 3


def test_an_upstream_down_at_start_does_not_stop_the_runtime(plane: Plane) -> None:
    plane.upstream.fail = True
    asyncio.run(plane.triggers().at_start())
    assert plane.upstream.calls == 1 and plane.store.events_since("conformance_kanban") == []


def test_no_triggers_read_nothing(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    try:
        quiet = Plane(_mapping(""), store)
        asyncio.run(quiet.triggers().at_start())

        async def write() -> None:
            quiet.triggers().after_write()

        asyncio.run(write())
        assert quiet.upstream.calls == 0
    finally:
        store.close()


@pytest.mark.parametrize(
    ("filter_text", "message"),
    [
        ("dew <= @todayEnd", "dew"),
        ("due <= ", "filter"),
        ('done = "maybe"', "true or false"),
    ],
)
def test_a_filter_the_entity_cannot_answer_is_a_problem(filter_text: str, message: str) -> None:
    mapping = _mapping(f"""
  triggers:
    - {{type: card.x, entity: cards, filter: '{filter_text}'}}
""")
    (problem,) = trigger_problems(mapping)
    assert problem.path == ("serve", "triggers", 0, "filter")
    assert message in problem.message
    assert trigger_problems(_mapping()) == []


def test_a_pass_runs_every_interval_with_nothing_to_prompt_it(plane: Plane) -> None:
    """A record that comes to match as time passes (here: it is changed where no write
    through the runtime and no feed sees it) is raised by the next timed pass."""

    async def run() -> tuple[int, int]:
        triggers = plane.triggers()
        await triggers.evaluate()
        before = len(plane.store.events_since("conformance_kanban"))
        plane.upstream.records[2]["due"] = _day(0)  # c_next is due today now
        triggers.every(0.05)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if len(plane.store.events_since("conformance_kanban")) > before:
                break
        await triggers.aclose()
        return before, len(plane.store.events_since("conformance_kanban"))

    before, after = asyncio.run(run())
    assert (before, after) == (3, 4)
