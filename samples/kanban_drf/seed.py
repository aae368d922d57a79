"""Seed data.

``default``
    board ``board_main`` ("Main board"), lists ``list_todo`` ("To Do", position 1) and
    ``list_doing`` ("Doing", position 2) on it, and card ``card_seed`` ("Welcome card" in
    ``list_todo``, priority ``low``). Nothing else.
``rich``
    the default data plus a deterministic, varied set: an archived board ``board_archive``,
    five tags ``tag_*`` and 60 cards ``card_r001`` … ``card_r060`` spread over both lists,
    with every priority, due dates on about half of them, some done, tags on many, titles of
    mixed case that share words (one contains a double quote, one is non-ASCII) and
    ``created`` timestamps spread over several months.

Both also create the superuser ``admin``; the API token is created per server start.
"""

from __future__ import annotations

import datetime as dt

SEEDS = ("default", "rich")
ADMIN_USERNAME = "admin"
SEED_TIME = dt.datetime(2026, 7, 30, tzinfo=dt.UTC)

RICH_CARD_COUNT = 60
RICH_TAGS = [
    ("tag_bug", "bug"),
    ("tag_feature", "feature"),
    ("tag_docs", "docs"),
    ("tag_ops", "ops"),
    ("tag_design", "design"),
]
PRIORITIES = ["none", "low", "medium", "high", "urgent"]
_VERBS = ["Fix", "fix", "Write", "Review", "update", "PLAN", "Ship", "Test"]
_NOUNS = [
    "login page",
    "Login flow",
    "export to CSV",
    "API docs",
    "billing report",
    "Search index",
    "onboarding email",
    "release notes",
    "dark mode",
    "mobile layout",
    "Payment webhook",
]
_SPECIAL_TITLES = {
    7: 'Rename "Inbox" column',
    13: "Café menu redesign",
    21: "fix LOGIN page typo",
    34: "Login page: add remember-me",
    55: "Ship v2.0 (beta) & docs: 100% done?",
}


def rich_card_title(n: int) -> str:
    if n in _SPECIAL_TITLES:
        return _SPECIAL_TITLES[n]
    return f"{_VERBS[n % len(_VERBS)]} {_NOUNS[(n * 7) % len(_NOUNS)]} #{n}"


def seed_database(seed: str = "default") -> None:
    from django.contrib.auth import get_user_model
    from django.db import transaction

    if seed not in SEEDS:
        raise ValueError(f"unknown seed {seed!r}; expected one of {SEEDS}")
    with transaction.atomic():
        get_user_model().objects.create_superuser(
            ADMIN_USERNAME, email="admin@example.com", password=None
        )
        _seed_default()
        if seed == "rich":
            _seed_rich()


def _seed_default() -> None:
    from .kanban.models import Board, Card, List

    board = Board.objects.create(id="board_main", name="Main board")
    todo = List.objects.create(id="list_todo", title="To Do", position=1, board=board)
    List.objects.create(id="list_doing", title="Doing", position=2, board=board)
    Card.objects.create(id="card_seed", title="Welcome card", list=todo, priority="low")
    # ``created`` is auto_now_add: set the fixed timestamps after creating the rows.
    Board.objects.filter(pk="board_main").update(created=SEED_TIME)
    Card.objects.filter(pk="card_seed").update(created=SEED_TIME)


def _seed_rich() -> None:
    from .kanban.models import Board, Card, List, Tag

    Board.objects.create(id="board_archive", name="Archive 2025", archived=True)
    Board.objects.filter(pk="board_archive").update(
        created=dt.datetime(2025, 12, 1, 8, 30, tzinfo=dt.UTC)
    )
    tags = [Tag.objects.create(id=tag_id, name=name) for tag_id, name in RICH_TAGS]
    lists = [List.objects.get(pk="list_todo"), List.objects.get(pk="list_doing")]
    first_created = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
    first_due = dt.date(2026, 8, 3)
    cards = []
    for n in range(1, RICH_CARD_COUNT + 1):
        due = None
        if n % 2 == 0 or n % 7 == 0:
            due = first_due + dt.timedelta(days=(n * 37) % 180)
        cards.append(
            Card(
                id=f"card_r{n:03d}",
                title=rich_card_title(n),
                list=lists[0] if (n % 3) != 0 else lists[1],
                priority=PRIORITIES[n % len(PRIORITIES)],
                due=due,
                done=(n % 4 == 0),
            )
        )
    Card.objects.bulk_create(cards)
    through = Card.tags.through
    links = []
    for n in range(1, RICH_CARD_COUNT + 1):
        for index, tag in enumerate(tags):
            if n % (index + 2) == 0:
                links.append(through(card_id=f"card_r{n:03d}", tag_id=tag.id))
    through.objects.bulk_create(links)
    for n in range(1, RICH_CARD_COUNT + 1):
        created = first_created + dt.timedelta(days=3 * n, hours=(n * 5) % 24, minutes=n % 60)
        Card.objects.filter(pk=f"card_r{n:03d}").update(created=created)
