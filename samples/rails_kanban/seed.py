"""The seed data in the Rails app's shape: integer ids, ``*_id`` keys, ``created_at``.

Ids are given out in the dataset's order per table, starting at 1: ``board_main`` 1,
``board_archive`` 2; ``list_todo`` 1, ``list_doing`` 2; tags 1-5 (``tag_bug`` ...
``tag_design``); ``card_seed`` 1, ``card_r001`` ... ``card_r060`` 2-61.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from samples.stacks_common.dataset import SEED_TIME, Record, dataset

RENAMES = {"board": "board_id", "list": "list_id", "tags": "tag_ids", "created": "created_at"}
REFERENCES = {"board_id": "boards", "list_id": "lists", "tag_ids": "tags"}


def rails_ids(seed: str = "default") -> dict[str, dict[str, int]]:
    """``{"cards": {"card_seed": 1, ...}, ...}``: the Django sample's ids to Rails ids."""
    return {
        name: {row["id"]: n for n, row in enumerate(rows, start=1)}
        for name, rows in dataset(seed).items()
    }


def rails_seed(seed: str = "default") -> dict[str, list[Record]]:
    ids = rails_ids(seed)
    return {name: [_row(name, row, ids) for row in rows] for name, rows in dataset(seed).items()}


def _row(table: str, row: Record, ids: dict[str, dict[str, int]]) -> Record:
    out: Record = {"created_at": _json(SEED_TIME)}
    for key, value in row.items():
        key = RENAMES.get(key, key)
        if key == "id":
            out[key] = ids[table][value]
        elif key in REFERENCES:
            target = ids[REFERENCES[key]]
            out[key] = [target[v] for v in value] if isinstance(value, list) else target[value]
        else:
            out[key] = _json(value)
    out["updated_at"] = out["created_at"]
    return out


def _json(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
