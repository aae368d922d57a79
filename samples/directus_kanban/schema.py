"""Directus collections, fields and relations, and the seed records in Directus's shape.

The collections are made through Directus's own API (``POST /collections`` with its
fields, ``POST /relations``), the way its admin app makes them: integer primary keys
given out by the database, ``date_created``/``date_updated`` managed by Directus
(``special``), a select interface with fixed choices, many-to-one relations. Ids are the
position of the record in the shared dataset, from 1 (``board_main`` is board 1,
``list_doing`` list 2, ``card_r001`` card 2).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from samples.stacks_common.dataset import PRIORITIES, SEED_TIME, Record, dataset

__all__ = ["JUNCTION", "ONE_FIELDS", "ORDER", "PRIORITIES", "RELATIONS", "blocked",
           "collection", "directus_ids", "directus_time", "estimate", "junction", "records",
           "relation"]  # fmt: skip
ORDER = ("boards", "lists", "tags", "cards")
# The junction of the cards' many-to-many tags, made after both sides, records last.
JUNCTION = "cards_tags"
PRIMARY_KEY = {
    "field": "id",
    "type": "integer",
    "schema": {"is_primary_key": True, "has_auto_increment": True},
    "meta": {"hidden": True, "interface": "input", "readonly": True},
}
TIMESTAMPS = [
    {
        "field": "date_created",
        "type": "timestamp",
        "schema": {},
        "meta": {"special": ["date-created"], "interface": "datetime", "readonly": True},
    },
    {
        "field": "date_updated",
        "type": "timestamp",
        "schema": {},
        "meta": {"special": ["date-updated"], "interface": "datetime", "readonly": True},
    },
]


def _text(name: str, size: int) -> dict[str, Any]:
    return {
        "field": name,
        "type": "string",
        "schema": {"max_length": size, "is_nullable": False},
        "meta": {"interface": "input", "required": True},
    }


def _parent(name: str) -> dict[str, Any]:
    return {
        "field": name,
        "type": "integer",
        "schema": {},
        "meta": {"interface": "select-dropdown-m2o", "special": ["m2o"]},
    }


def _flag(name: str) -> dict[str, Any]:
    # The admin app adds ``cast-boolean`` to a boolean field; without it Directus
    # answers what SQLite stores: 0 or 1.
    return {
        "field": name,
        "type": "boolean",
        "schema": {"default_value": False},
        "meta": {"interface": "boolean", "special": ["cast-boolean"]},
    }


# A boolean column made without the admin app's ``cast-boolean``: Directus answers what
# SQLite stores, 0 or 1, while its field metadata says boolean.
UNCAST_FLAG = {"field": "blocked", "type": "boolean", "schema": {"default_value": False},
               "meta": {"interface": "boolean"}}  # fmt: skip
# The lists of a board, as Directus shows a one-to-many: an alias field without a column,
# answered as the ids of the lists whose `board` names the board.
CHILDREN = {"field": "lists", "type": "alias",
            "meta": {"interface": "list-o2m", "special": ["o2m"]}}  # fmt: skip
PRIORITY = {
    "field": "priority",
    "type": "string",
    "schema": {"max_length": 20},
    "meta": {
        "interface": "select-dropdown",
        "options": {"choices": [{"text": p.title(), "value": p} for p in PRIORITIES]},
    },
}
FIELDS: dict[str, list[dict[str, Any]]] = {
    "boards": [_text("name", 200), _flag("archived"), CHILDREN],
    "lists": [_text("title", 120), {"field": "position", "type": "float", "schema": {}},
              _parent("board")],
    "cards": [
        _text("title", 200),
        _parent("list"),
        PRIORITY,
        {"field": "due", "type": "date", "schema": {}, "meta": {"interface": "datetime"}},
        _flag("done"),
        UNCAST_FLAG,
        {"field": "estimate", "type": "integer", "schema": {}, "meta": {"interface": "input"}},
        # Many-to-many through the junction: an alias field answered as junction row ids.
        {"field": "tags", "type": "alias", "meta": {"interface": "list-m2m", "special": ["m2m"]}},
    ],
    "tags": [{**_text("name", 50), "schema": {"max_length": 50, "is_nullable": False,
                                               "is_unique": True}}],
    JUNCTION: [_parent("cards_id"), _parent("tags_id")],
}  # fmt: skip
# (collection, field, related collection): what a delete of the parent does is Directus's
# default for a nullable foreign key, SET NULL.
RELATIONS = (
    ("lists", "board", "boards"), ("cards", "list", "lists"),
    (JUNCTION, "cards_id", "cards"), (JUNCTION, "tags_id", "tags"),
)  # fmt: skip
# The alias field on the "one" side that lists the "many" side.
ONE_FIELDS = {("lists", "board"): "lists", (JUNCTION, "cards_id"): "tags"}
# A junction's relations name the other side of the many-to-many.
JUNCTION_FIELDS = {(JUNCTION, "cards_id"): "tags_id", (JUNCTION, "tags_id"): "cards_id"}


def collection(name: str) -> dict[str, Any]:
    """The body of ``POST /collections`` that makes collection ``name``."""
    if name == JUNCTION:  # as the admin app makes one: hidden, no timestamps
        return {"collection": name, "schema": {}, "meta": {"hidden": True, "icon": "import_export"},
                "fields": [PRIMARY_KEY, *FIELDS[name]]}  # fmt: skip
    return {
        "collection": name,
        "schema": {},
        "meta": {"icon": "view_kanban"},
        "fields": [PRIMARY_KEY, *FIELDS[name], *TIMESTAMPS],
    }


def relation(many: str, field: str, one: str) -> dict[str, Any]:
    return {
        "collection": many,
        "field": field,
        "related_collection": one,
        "schema": {"on_delete": "SET NULL"},
        "meta": {"one_field": ONE_FIELDS.get((many, field)),
                 "junction_field": JUNCTION_FIELDS.get((many, field))},
    }  # fmt: skip


def directus_ids(seed: str) -> dict[str, dict[str, int]]:
    """{collection: {dataset id: Directus id}}: positions from 1, the order of creation."""
    return {
        name: {row["id"]: n for n, row in enumerate(rows, start=1)}
        for name, rows in dataset(seed).items()
        if name in ORDER
    }


def junction(seed: str) -> list[Record]:
    """The junction rows of the seed's card tags, in card order then tag order."""
    ids = directus_ids(seed)
    return [
        {"cards_id": ids["cards"][card["id"]], "tags_id": ids["tags"][tag]}
        for card in dataset(seed)["cards"]
        for tag in card["tags"]
    ]


def records(seed: str) -> dict[str, list[Record]]:
    """Seed records to POST, in id order, plus ``date_created`` (set afterwards)."""
    data = dataset(seed)
    ids = directus_ids(seed)
    parents = {"board": "boards", "list": "lists"}
    out: dict[str, list[Record]] = {}
    for name in ORDER:
        rows = []
        for n, row in enumerate(data[name], start=1):
            record: Record = {}
            for key, value in row.items():
                if key in ("id", "tags"):
                    continue
                if key in parents:
                    record[key] = ids[parents[key]][value]
                elif key == "due":
                    record[key] = value.isoformat() if value else None
                elif key == "created":
                    record["date_created"] = directus_time(value)
                else:
                    record[key] = value
            if name == "cards":
                record["estimate"] = estimate(n)
                record["blocked"] = blocked(n)
            record.setdefault("date_created", directus_time(SEED_TIME))
            rows.append(record)
        out[name] = rows
    return out


def estimate(n: int) -> int | None:
    """Story points of card ``n``: unset for every fifth card."""
    return None if n % 5 == 0 else (n * 3) % 8 + 1


def blocked(n: int) -> bool:
    """Whether card ``n`` is blocked: every seventh card."""
    return n % 7 == 0


def directus_time(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
