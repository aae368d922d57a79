"""Seeds whose data depends on the day the server starts.

They cannot be cached as templates (the date moves), so each starts from a cached
seed's copy and changes it once that copy is in place; the base seed's template is
left exactly as it is.

``due-today``
    the ``default`` data with card ``card_seed`` due today: its ``due`` is the
    current UTC day key (``YYYY-MM-DD``), read when the server starts.
"""

from __future__ import annotations

import datetime as dt

# dated seed -> the cached seed it starts from
DATED_SEEDS = {"due-today": "default"}


def base_seed(seed: str) -> str:
    return DATED_SEEDS.get(seed, seed)


def apply_dated(seed: str, today: dt.date | None = None) -> None:
    """Change the freshly copied database as the dated seed says (nothing for others)."""
    if seed != "due-today":
        return
    from .kanban.models import Card

    day = today or dt.datetime.now(dt.UTC).date()
    Card.objects.filter(pk="card_seed").update(due=day)
