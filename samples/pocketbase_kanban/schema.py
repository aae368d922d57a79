"""PocketBase collections and the seed records in PocketBase's shape.

Every collection is superuser-only (all API rules ``null``). Record ids are 15 characters
of ``[a-z0-9]``, derived from the Django sample's ids: ``pb_id("board_main")`` is
``boardmain000001`` (underscores dropped, zero-padded to 14, then ``1``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from samples.stacks_common.dataset import PRIORITIES, SEED_TIME, Record, dataset

SUPERUSER_ONLY = {r: None for r in ("listRule", "viewRule", "createRule", "updateRule")}
RULES = {**SUPERUSER_ONLY, "deleteRule": None}
TIMESTAMPS = [
    {"name": "created", "type": "autodate", "onCreate": True, "onUpdate": False},
    {"name": "updated", "type": "autodate", "onCreate": True, "onUpdate": True},
]


def pb_id(django_id: str) -> str:
    stem = django_id.replace("_", "")
    if len(stem) > 14 or not stem.isalnum():
        raise ValueError(f"no PocketBase id for {django_id!r}")
    return stem.ljust(14, "0") + "1"


def pb_time(value: dt.datetime | dt.date) -> str:
    if not isinstance(value, dt.datetime):
        value = dt.datetime.combine(value, dt.time(), dt.UTC)
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.000Z")


ORDER = ("boards", "lists", "tags", "cards")


def collection(name: str, ids: dict[str, str]) -> dict[str, Any]:
    """The definition of collection ``name``; ``ids`` maps the names created before it."""
    text = {"type": "text", "required": True}
    boards = [{"name": "name", **text, "max": 200}, {"name": "archived", "type": "bool"}]
    lists = [
        {"name": "title", **text, "max": 120},
        {"name": "position", "type": "number"},
        {"name": "board", "type": "relation", "collectionId": ids.get("boards"), "maxSelect": 1},
    ]
    tags = [{"name": "name", **text, "max": 50}]
    cards = [
        {"name": "title", **text, "max": 200},
        {"name": "list", "type": "relation", "collectionId": ids.get("lists"), "maxSelect": 1},
        {"name": "priority", "type": "select", "values": PRIORITIES, "maxSelect": 1},
        {"name": "due", "type": "date"},
        {"name": "done", "type": "bool"},
        {"name": "tags", "type": "relation", "collectionId": ids.get("tags"), "maxSelect": 99},
    ]
    unique_tag = ["CREATE UNIQUE INDEX idx_tags_name ON tags (name)"]
    definitions: dict[str, dict[str, Any]] = {
        "boards": {"fields": boards + TIMESTAMPS},
        "lists": {"fields": lists + TIMESTAMPS},
        "tags": {"fields": tags + TIMESTAMPS, "indexes": unique_tag},
        "cards": {"fields": cards + TIMESTAMPS},
    }
    return {"name": name, "type": "base", **RULES, **definitions[name]}


def records(seed: str) -> dict[str, list[Record]]:
    """Seed records to POST, plus ``created`` (set afterwards: autodate ignores input)."""
    data = dataset(seed)
    out: dict[str, list[Record]] = {}
    for name, rows in data.items():
        out[name] = [_record(row) for row in rows]
    return out


def _record(row: Record) -> Record:
    record: Record = {}
    for key, value in row.items():
        if key == "id" or key in ("board", "list"):
            record[key] = pb_id(value)
        elif key == "tags":
            record[key] = [pb_id(tag) for tag in value]
        elif key == "due":
            record[key] = pb_time(value) if value else ""
        elif key == "created":
            record[key] = pb_time(value)
        else:
            record[key] = value
    record.setdefault("created", pb_time(SEED_TIME))
    return record
