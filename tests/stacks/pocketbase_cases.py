"""What the PocketBase end-to-end test expects, and how it reads PocketBase's request log.

Rich seed ids: `pb_id("list_doing")` is ``listdoing000001``, `pb_id("tag_bug")` is
``tagbug000000001`` (see `samples/pocketbase_kanban/README.md`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .support import Through

CARDS = "/api/collections/cards/records"
LOG_WAIT_SECONDS = 20.0  # PocketBase writes its request log in batches, every few seconds

INFERRED: list[tuple[str, Any]] = [
    ("upstream.auth", {"type": "header", "name": "Authorization",
                       "value": "${POCKETBASE_KANBAN_TOKEN}"}),
    ("upstream.pagination", {"style": "page", "page": "page", "size": "perPage",
                             "items": "items", "total": "totalItems", "maxSize": 1000}),
    ("upstream.errors", "pocketbase"),
    ("upstream.dialect", "pocketbase"),
    ("entities.cards.id", {"source": "id", "type": "string"}),
    ("entities.cards.fields.list.entity", "lists"),
    ("entities.cards.fields.list.upstreamOnDelete", "set-null"),
    ("entities.cards.fields.tags.type", "list<ref>"),
    ("entities.cards.fields.priority.values", ["none", "low", "medium", "high", "urgent"]),
    ("entities.cards.fields.due.type", "datetime"),
    ("entities.cards.fields.created.readOnly", True),
    ("entities.cards.fields.title.max", 200),
    ("entities.cards.filter.due.<.param", "filter"),
    ("entities.cards.filter.tags", {"?=": {"param": "filter", "evidence": ["pocketbase"]}}),
    ("entities.cards.sort.fields", ["id", "title", "list", "priority", "due", "done",
                                    "created", "updated"]),
    ("entities.lists.fields.board.upstreamOnDelete", "set-null"),
    ("entities.tags.fields.name.required", True),
]  # fmt: skip

UNMAPPED = [
    ("/api/collections", "spec-document"),
    *((f"/api/collections/_{name}/records", "system-collection")
      for name in ("authOrigins", "externalAuths", "mfas", "otps", "superusers")),
    ("/api/collections/users/records", "auth-collection"),
]  # fmt: skip


@dataclass(frozen=True)
class Read:
    name: str
    filter: str
    sent: str | None  # the filter PocketBase is told; None when all is checked here
    direct: str  # the same question in PocketBase's own terms
    sort: str = "title,id"
    delegated: bool = True
    page: str = "1"
    per_page: str = "30"
    params: dict[str, str] = field(default_factory=dict)


READS = [
    Read("contains", 'title ~ "login"', 'title ~ "login"', 'title ~ "login"'),
    Read("an || group and a boolean", '(priority = "high" || priority = "urgent") && done = false',
         '(priority = "high" || priority = "urgent") && done = false',
         '(priority = "high" || priority = "urgent") && done = false', sort="-created,id"),
    Read("ordering never reaches a blank date", 'due < "2026-10-01"',
         '(due != "" && due < "2026-10-01 00:00:00.000Z")', 'due != "" && due < "2026-10-01"',
         sort="due,id"),
    Read("has a tag", 'tags ?= "tagbug000000001"', 'tags:each ?= "tagbug000000001"',
         'tags.id ?= "tagbug000000001"'),
    Read("a month of datetimes", 'created >= "2026-04-01T00:00:00Z" && created < "2026-05-01"',
         '(created != "" && created >= "2026-04-01 00:00:00.000Z") && '
         '(created != "" && created < "2026-05-01 00:00:00.000Z")',
         'created >= "2026-04-01" && created < "2026-05-01"', sort="-created,id"),
    Read("quotes", "title = 'Rename \"Inbox\" column'", 'title = "Rename \\"Inbox\\" column"',
         "title = 'Rename \"Inbox\" column'"),
    Read("blank dates", "due = null && done = false", 'due = "" && done = false',
         'due = "" && done = false'),
    Read("a page in the middle", "done = false", "done = false", "done = false", page="2",
         per_page="7"),
    Read("through a ref: narrowed there, checked here", 'list.title = "Doing" && done = true',
         "done = true", 'list.title = "Doing" && done = true', delegated=False),
    Read("nothing it can be told", 'title ~ "fix" || list.title = "Doing"', None,
         'title ~ "fix" || list.title = "Doing"', delegated=False),
]  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    name: str
    entity: str
    body: dict[str, Any]
    codes: tuple[str, ...]


REFUSALS = [
    Refusal("unknown field", "cards", {"title": "Refused 1", "colour": "red"}, ("unknown_field",)),
    Refusal("dangling ref", "cards", {"title": "Refused 2", "list": "nolist000000001"},
            ("invalid_ref",)),
    Refusal("dangling list<ref>", "cards", {"title": "Refused 3", "tags": ["notag0000000001"]},
            ("invalid_ref",)),
    Refusal("every violation at once", "cards",
            {"title": "Refused 4", "due": "31-12-2026", "priority": "someday", "done": "yes"},
            ("invalid_date", "invalid_enum", "invalid_boolean")),
    Refusal("too long", "tags", {"name": "x" * 51}, ("invalid_string",)),
    Refusal("required", "lists", {"position": 3}, ("missing_required",)),
]  # fmt: skip


def asked_of(entry: dict[str, Any]) -> dict[str, str]:
    query = parse_qs(urlsplit(entry["data"]["url"]).query)
    return {k: v[0] for k, v in query.items()}


def logged(
    through: Through, where: str, until: Callable[[list[Any]], bool], path: str = CARDS
) -> list[Any]:
    """PocketBase's request log entries for listings of `path` matching `where`, once `until`."""
    deadline = time.monotonic() + LOG_WAIT_SECONDS
    while True:
        query = f'data.url ~ "{path}?" && {where}'
        entries = through.direct("/api/logs", perPage=500, sort="created", filter=query).json()
        if until(entries["items"]) or time.monotonic() > deadline:
            return list(entries["items"])
        time.sleep(0.5)
