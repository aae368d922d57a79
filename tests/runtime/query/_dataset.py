"""A small typed dataset: cards with owners (users) and tags, as protocol records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from runtime.mapping import Entity, Field
from runtime.query import EntityResolver

NOW = datetime(2026, 7, 30, 12, 0, 0, tzinfo=UTC)  # a Thursday


def field(name: str, type: str, **extra: Any) -> Field:
    return Field(name=name, type=type, source=(name,), **extra)


def entity(name: str, *fields: Field) -> Entity:
    return Entity(
        name=name,
        module="board",
        path=f"/{name}/",
        detail_path=f"/{name}/{{id}}/",
        id_source=("id",),
        id_type="string",
        fields=MappingProxyType({f.name: f for f in fields}),
        label=None,
    )


USERS = entity("users", field("name", "string"), field("manager", "ref", entity="users"))
TAGS = entity("tags", field("name", "string"), field("color", "enum", values=("red", "blue")))
CARDS = entity(
    "cards",
    field("title", "string"),
    field("priority", "enum", values=("none", "low", "medium", "high", "urgent")),
    field("done", "boolean"),
    field("points", "number"),
    field("due", "string", day_key=True),
    field("created", "datetime"),
    field("owner", "ref", entity="users"),
    field("tags", "list<ref>", entity="tags"),
    field("labels", "list<enum>", values=("home", "work", "urgent")),
    field("meta", "json"),
    field("scan", "binary"),
    field("secret", "string", write_only=True),
)
ENTITIES = {e.name: e for e in (USERS, TAGS, CARDS)}

RELATED: dict[str, dict[str, dict[str, Any]]] = {
    "users": {
        "u1": {"id": "u1", "name": "Ann", "manager": ""},
        "u2": {"id": "u2", "name": "Bob", "manager": "u1"},
        "u3": {"id": "u3", "name": None, "manager": "u2"},
    },
    "tags": {
        "t1": {"id": "t1", "name": "a", "color": "red"},
        "t2": {"id": "t2", "name": "b", "color": "blue"},
        "t3": {"id": "t3", "name": "a", "color": "blue"},
        "t4": {"id": "t4", "name": "a", "color": "red"},
    },
}

CARD_RECORDS: list[dict[str, Any]] = [
    {
        "id": "c1", "title": "Buy milk", "priority": "high", "done": False, "points": 3,
        "due": "2026-07-30", "created": "2026-07-30 09:15:00.000Z", "owner": "u1",
        "tags": ["t1", "t2"], "labels": ["home", "urgent"],
        "meta": {"size": 2, "items": [{"sku": "A1"}]},
    },
    {
        "id": "c2", "title": "Oat MILK 100%", "priority": "low", "done": True, "points": 10.5,
        "due": "2026-08-02", "created": "2026-07-29T23:30:00-02:00", "owner": "u2",
        "tags": ["t3"], "labels": ["home"], "meta": {"size": "2"},
    },
    {
        "id": "c3", "title": None, "priority": None, "done": False, "points": None,
        "due": None, "created": None, "owner": "", "tags": [], "labels": [], "meta": None,
    },
    {
        "id": "c4", "title": "Call mum_now", "priority": "urgent", "done": False, "points": 0,
        "due": "2026-07-01", "created": "2025-12-31T23:59:59Z", "owner": "u9",
        "tags": ["t4", "t9"], "labels": ["work"], "meta": {"size": 5, "flag": True},
    },
    {
        "id": "c5", "title": 'Fix "the" bike\\path', "priority": "high", "done": True,
        "points": -2, "due": "2026-07-31", "created": "2026-07-30T12:00:00Z", "owner": "u1",
        "tags": ["t1"], "labels": ["work", "home"], "meta": {"size": 1.5},
    },
    {
        "id": "c6", "title": "Éclair", "priority": "medium", "done": False, "points": 100,
        "due": "2026-07-29", "created": "2026-07-28", "owner": "u3",
        "tags": ["t2", "t3"], "labels": ["home"], "meta": {"size": None},
    },
]  # fmt: skip


def lookup(entity_name: str, record_id: str) -> Mapping[str, Any] | None:
    return RELATED.get(entity_name, {}).get(record_id)


def resolver() -> EntityResolver:
    return EntityResolver(CARDS, ENTITIES, lookup)


def ids(records: Sequence[Mapping[str, Any]]) -> list[str]:
    return [r["id"] for r in records]
