"""The kanban data of ``samples.kanban_drf``'s seeds as plain records, for other stacks.

``dataset(seed)`` gives ``{"boards", "lists", "tags", "cards"}`` in the Django sample's
wire names and string ids (``board_main``, ``list_todo``, ``card_seed``, ...), with
``datetime``/``date`` values. Each stack maps these records to its own field names and
ids; the lists are in a fixed order (the order integer ids are given out in).

``default``: board ``board_main``, lists ``list_todo`` (position 1) and ``list_doing``
(position 2), card ``card_seed`` in ``list_todo`` with priority ``low``.
``rich``: the default records plus the Django sample's ``rich`` set (an archived board,
five tags, 60 cards with the same titles, lists, priorities, due dates, done flags, tags
and creation times).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from samples.kanban_drf.seed import (
    PRIORITIES,
    RICH_CARD_COUNT,
    RICH_TAGS,
    SEED_TIME,
    SEEDS,
    rich_card_title,
)

Record = dict[str, Any]
COLLECTIONS = ("boards", "lists", "tags", "cards")
__all__ = ["COLLECTIONS", "PRIORITIES", "SEEDS", "SEED_TIME", "Record", "dataset"]


def dataset(seed: str = "default") -> dict[str, list[Record]]:
    if seed not in SEEDS:
        raise ValueError(f"unknown seed {seed!r}; expected one of {SEEDS}")
    data: dict[str, list[Record]] = {
        "boards": [_board("board_main", "Main board", False, SEED_TIME)],
        "lists": [
            {"id": "list_todo", "title": "To Do", "position": 1.0, "board": "board_main"},
            {"id": "list_doing", "title": "Doing", "position": 2.0, "board": "board_main"},
        ],
        "tags": [],
        "cards": [_card("card_seed", "Welcome card", "list_todo", "low", None, False, SEED_TIME)],
    }
    if seed == "rich":
        _add_rich(data)
    return data


def _board(id_: str, name: str, archived: bool, created: dt.datetime) -> Record:
    return {"id": id_, "name": name, "archived": archived, "created": created}


def _card(
    id_: str,
    title: str,
    list_id: str,
    priority: str,
    due: dt.date | None,
    done: bool,
    created: dt.datetime,
    tags: list[str] | None = None,
) -> Record:
    return {
        "id": id_,
        "title": title,
        "list": list_id,
        "priority": priority,
        "due": due,
        "done": done,
        "created": created,
        "tags": tags or [],
    }


def _add_rich(data: dict[str, list[Record]]) -> None:
    """Same formulas as ``samples.kanban_drf.seed._seed_rich``."""
    archived_at = dt.datetime(2025, 12, 1, 8, 30, tzinfo=dt.UTC)
    data["boards"].append(_board("board_archive", "Archive 2025", True, archived_at))
    data["tags"] = [{"id": tag_id, "name": name} for tag_id, name in RICH_TAGS]
    first_created = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
    first_due = dt.date(2026, 8, 3)
    for n in range(1, RICH_CARD_COUNT + 1):
        due = None
        if n % 2 == 0 or n % 7 == 0:
            due = first_due + dt.timedelta(days=(n * 37) % 180)
        tags = [tag_id for i, (tag_id, _) in enumerate(RICH_TAGS) if n % (i + 2) == 0]
        created = first_created + dt.timedelta(days=3 * n, hours=(n * 5) % 24, minutes=n % 60)
        data["cards"].append(
            _card(
                f"card_r{n:03d}",
                rich_card_title(n),
                "list_todo" if n % 3 != 0 else "list_doing",
                PRIORITIES[n % len(PRIORITIES)],
                due,
                n % 4 == 0,
                created,
                tags,
            )
        )
