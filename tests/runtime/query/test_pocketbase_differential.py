"""Our local filter evaluator against real PocketBase 0.40.6, on the same records.

The rich kanban seed's cards are copied into a PocketBase ``cards`` collection
(text title and list, select priority, bool done, date due, number points,
multiple select tags, date opened holding the seed's creation time, text key
holding the seed's id). Each case runs once in PocketBase
(``GET /api/collections/cards/records?filter=…&perPage=500``) and once through
``runtime.query.compile_filter`` over the records PocketBase stored, read as
protocol records of an entity declaring the same fields; both must select the
same records (and, when the case sorts, in the same order).

Deliberately excluded, because our evaluator compares values as the mapping's
declared types where PocketBase compares SQLite column text (reference
``pocketbase-records-api.md`` §4.3, and the cases in ``test_evaluate.py``):

* ordering comparisons that can reach a blank date (``due < X``, ``due <= X``
  without ``due != ""``): PocketBase stores an unset date as ``''``, which
  sorts before every date, so it keeps blank rows; we never order a blank;
* a date-only literal under ``>`` or ``<=`` on a day that is stored: PocketBase
  compares ``"2026-10-16 00:00:00.000Z" > "2026-10-16"`` as text (true), we
  compare instants (equal); likewise datetime literals with ``T`` or a zone,
  which PocketBase compares as text and we compare as instants;
* bare multi-valued fields (``tags ?= "tag_bug"``, ``tags ~ "bug"``):
  PocketBase compares the raw JSON array text, we compare the elements
  (``tags:each`` and ``tags:length`` agree and are covered);
* a boolean against the text ``"true"``, text against a number literal
  (``title = 5`` is ``title = '5.0'`` in SQLite) and numbers against text that
  is not numeric: PocketBase answers by SQLite affinity, we compare declared
  types or refuse the literal with ``invalid_filter``;
* macros whose value moves under the test (``@second``, ``@minute``, ``@now``
  against values seconds away) and ``@random``, which is not deterministic.

`DIFFERENCES` pins one example of each difference with both answers, so a
change on either side shows up here rather than in a user's query.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

import httpx
import pytest

from runtime.mapping import Entity, Field
from runtime.protocol import ProtocolError
from runtime.query import EntityResolver, compile_filter, compile_sort, parse_filter, parse_sort
from tests.fixtures.pocketbase import (
    POCKETBASE_VERSION,
    PocketBaseError,
    PocketBaseServer,
    create_collection,
    insert_records,
    pocketbase_binary,
    start_pocketbase,
    verified,
)
from tests.fixtures.servers import KanbanServer

PRIORITIES = ("none", "low", "medium", "high", "urgent")
TAGS = ("tag_bug", "tag_feature", "tag_docs", "tag_ops", "tag_design")
RECORDS = "/api/collections/cards/records"
COLLECTION: list[dict[str, Any]] = [
    {"name": "key", "type": "text", "required": True},
    {"name": "title", "type": "text"},
    {"name": "list", "type": "text"},
    {"name": "priority", "type": "select", "values": list(PRIORITIES), "maxSelect": 1},
    {"name": "done", "type": "bool"},
    {"name": "due", "type": "date"},
    {"name": "points", "type": "number"},
    {"name": "tags", "type": "select", "values": list(TAGS), "maxSelect": len(TAGS)},
    {"name": "opened", "type": "date"},
]


def _field(name: str, type: str, **extra: Any) -> Field:
    return Field(name=name, type=type, source=(name,), **extra)


CARDS = Entity(
    name="cards",
    module="board",
    path="/cards/",
    detail_path="/cards/{id}/",
    id_source=("id",),
    id_type="string",
    fields=MappingProxyType(
        {
            f.name: f
            for f in (
                _field("key", "string"),
                _field("title", "string"),
                _field("list", "string"),
                _field("priority", "enum", values=PRIORITIES),
                _field("done", "boolean"),
                _field("due", "datetime"),
                _field("points", "number"),
                _field("tags", "list<enum>", values=TAGS),
                _field("opened", "datetime"),
            )
        }
    ),
    label="title",
)


def _points(key: str) -> float:
    """A number per card the seed lacks: negatives, zero, halves, repeats."""
    n = int(key.removeprefix("card_r")) if key.startswith("card_r") else 0
    return (n * 7) % 11 - 3 + (0.5 if n % 6 == 0 else 0)


def _pocketbase_card(card: dict[str, Any]) -> dict[str, Any]:
    return {
        "key": card["id"],
        "title": card["title"],
        "list": card["list"] or "",
        "priority": card["priority"] or "",
        "done": card["done"],
        "due": card["due"] or "",
        "points": _points(card["id"]),
        "tags": card["tags"],
        "opened": card["created"],
    }


def _protocol(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored PocketBase record as a protocol record: an unset date is null."""
    record = {name: stored[name] for name in CARDS.fields}
    record["id"] = stored["id"]
    for name in ("due", "opened"):
        record[name] = record[name] or None
    return record


@dataclass(frozen=True)
class Loaded:
    server: PocketBaseServer
    records: list[dict[str, Any]]


@pytest.fixture(scope="module")
def pocketbase(kanban_rich: KanbanServer) -> Iterator[Loaded]:
    answer = httpx.get(
        f"{kanban_rich.api}/cards/", params={"page_size": 1000}, headers=kanban_rich.headers
    )
    answer.raise_for_status()
    cards = answer.json()["results"]
    assert len(cards) == answer.json()["count"] > 50
    with start_pocketbase() as server:
        create_collection(server, "cards", COLLECTION)
        stored = insert_records(server, "cards", [_pocketbase_card(c) for c in cards])
        yield Loaded(server, [_protocol(r) for r in stored])


@dataclass(frozen=True)
class Case:
    filter: str
    count: int | None  # records selected; None when it depends on today's date
    sort: str = ""
    why: str = ""


TEXT = [
    Case('title = "Café menu redesign"', 1),
    Case("title = 'Rename \"Inbox\" column'", 1, why="the other quote needs no escape"),
    Case(r'title = "Rename \"Inbox\" column"', 1, why="escaped quotes"),
    Case('title = "café menu redesign"', 0, why="= is case-sensitive"),
    Case('title != "Welcome card"', 60),
    Case('title = ""', 0),
    Case("title != null", 61),
    Case('title > "Z"', 17, why="code point order: lower case after upper case"),
    Case('title <= "Fix API docs #24"', 2, why="<= includes the equal title"),
    Case('"Welcome card" = title', 1, why="a literal on the left"),
    Case('list = "list_doing"', 20),
    Case('key = "card_r042"', 1),
    Case('title:lower = "fix login page #33"', 1),
    Case('title:lower ~ "café"', 1, why=":lower is ASCII-only"),
]
LIKE = [
    Case('title ~ "login"', 11, why="contains, ASCII case-insensitive"),
    Case('title ~ "LOGIN PAGE"', 6),
    Case('title !~ "login"', 50),
    Case('title ~ "fix%"', 16, why="a % makes a raw pattern: starts with"),
    Case('title ~ "%#1_"', 9, why="with %, _ is one character"),
    Case('title ~ "_ix %"', 16),
    Case('title ~ "%email%"', 6),
    Case('title ~ "café"', 1),
    Case('title ~ "CAFÉ"', 0, why="non-ASCII letters do not fold"),
    Case('title ~ "100%"', 0, why="starts with 100"),
    Case(r'title ~ "100\%"', 1, why="an escaped % is literal, so the value is wrapped"),
    Case('title ~ "v2.0 (beta) &"', 1),
    Case("title ~ '\"Inbox\"'", 1),
    Case('title ~ "#1_"', 0, why="without %, _ is literal"),
    Case('title ~ ""', 61, why="the empty pattern matches all"),
    Case('title !~ ""', 0),
    Case("title ~ null", 0, why="a null pattern matches nothing"),
    Case("title !~ null", 0),
    Case('priority ~ "urg"', 12),
]
ENUMS_AND_BOOLEANS = [
    Case('priority = "high"', 12),
    Case('priority != "none"', 49),
    Case('priority = "bogus"', 0, why="a value the select does not offer"),
    Case('priority = "low" || priority = "urgent"', 25),
    Case("done = true", 15),
    Case("done = false", 46, why="false is not blank"),
    Case("done != true", 46),
    Case("done = TRUE", 15, why="true/false/null ignore case"),
    Case("done = null", 0),
]
NUMBERS = [
    Case("points > 3", 23),
    Case("points >= 0", 44),
    Case("points < 0", 17),
    Case("points = 0", 5, why="0 is a value, not blank"),
    Case("points = 4.5", 1),
    Case("points > -1.5", 50),
    Case("points != 0", 56),
    Case("points = null", 0, why="a number is never blank"),
    Case('points > "5"', 12, why="a numeric string compares as a number"),
    Case("points <= -.5", 17),
]
DATES = [
    Case("due = null", 27),
    Case('due = ""', 27),
    Case('due != ""', 34),
    Case('due = "2026-10-16 00:00:00.000Z"', 1),
    Case('due >= "2026-10-16"', 19, why="a date prefix is the day's midnight for >= in both"),
    Case('due > "2026-10-16 00:00:00.000Z"', 18),
    Case('due != "" && due < "2026-10-01 00:00:00.000Z"', 12),
    Case('due != "" && due <= "2026-10-16 00:00:00.000Z"', 16),
    Case('due > "2026-12-31 23:59:59.999Z"', 5, why="the next year"),
    Case('opened >= "2026-03-01 03:18:00.000Z"', 44),
    Case('opened < "2026-02-01"', 8),
    Case('opened >= "2026-04-01" && opened < "2026-05-01"', 10),
    Case('opened = "2026-07-30 00:00:00.000Z"', 1),
]
LISTS = [
    Case('tags:each ?= "tag_docs"', 15, why="at least one element"),
    Case('tags:each = "tag_bug"', 8, why="every element, and there is one"),
    Case('tags:each ?!= "tag_bug"', 53, why="some element differs, or there is none"),
    Case('tags:each != "tag_bug"', 31, why="no element equal, including none"),
    Case('tags:each ?~ "fea"', 20),
    Case("tags:length = 0", 17),
    Case("tags:length > 2", 12),
    Case('tags:each ?= "tag_ops" && tags:each ?= "tag_bug"', 0, why="one :each join per path"),
]
LOGIC = [
    Case('(priority = "high" || priority = "urgent") && done = false', 18),
    Case('priority = "low" || priority = "high" && done = true', 16, why="&& binds tighter"),
    Case('(priority = "low" || priority = "high") && done = true', 6),
    Case('done = true && (due > "2026-12-01 00:00:00.000Z" || tags:length >= 4)', 8),
    Case('((points > 1 && (done = true || title ~ "login")))', 9),
    Case("done = true // finished ones\n&& points < 0", 5, why="comments"),
    Case("1 = 1", 61),
    Case("null = ''", 61, why="both blank"),
    Case("'' != null", 0),
]
MACROS = [
    Case("opened < @now", None, why="every card was opened in the past"),
    Case("opened >= @yearStart", None),
    Case('due != "" && due >= @todayStart', None),
    Case('due != "" && due > @monthEnd', None),
    Case("@year >= 2026 && done = true", None),
]
SORTED = [
    Case("done = true", 15, sort="-points,key"),
    Case('priority != "none"', 49, sort="priority,-opened"),
    Case('title ~ "login"', 11, sort="title"),
    Case("points >= 2", 33, sort="due,-key", why="blank dates first ascending"),
    Case('list = "list_todo"', 41, sort="-due,title", why="blank dates last descending"),
    Case("tags:length >= 1", 44, sort="done,-priority,points,key"),
]
CASES = TEXT + LIKE + ENUMS_AND_BOOLEANS + NUMBERS + DATES + LISTS + LOGIC + MACROS + SORTED


def _keys(records: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(r["key"]) for r in records]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.filter} | {c.sort}" for c in CASES])
def test_pocketbase_and_the_local_evaluator_select_the_same_records(
    pocketbase: Loaded, case: Case
) -> None:
    params = {"filter": case.filter, "perPage": "500"}
    if case.sort:
        params["sort"] = case.sort
    answer = httpx.get(f"{pocketbase.server.url}{RECORDS}", params=params)
    now = datetime.now(UTC)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    theirs = _keys(body["items"])
    assert body["totalItems"] == len(theirs)

    resolver = EntityResolver(CARDS)
    predicate = compile_filter(parse_filter(case.filter), resolver, now=now, text=case.filter)
    kept = [r for r in pocketbase.records if predicate(r)]
    if case.sort:
        ours = _keys(compile_sort(parse_sort(case.sort), resolver)(kept))
        assert ours == theirs, case.why
    else:
        assert sorted(_keys(kept)) == sorted(theirs), case.why
    if case.count is not None:
        assert len(theirs) == case.count, case.why


@dataclass(frozen=True)
class Difference:
    filter: str
    pocketbase: int  # records PocketBase selects
    ours: int | None  # records we select; None when we refuse the filter
    why: str


DIFFERENCES = [
    Difference('due < "2026-10-01 00:00:00.000Z"', 39, 12, "PocketBase orders a blank date first"),
    Difference('due <= "2026-10-16"', 42, 16, "blank dates, and text after the prefix is greater"),
    Difference('due > "2026-10-16"', 19, 18, "the stored midnight is text greater than the prefix"),
    Difference('opened < "2026-03-01T05:18:00+02:00"', 18, 17, "PocketBase ignores the zone"),
    Difference('tags ?= "tag_bug"', 0, 30, "PocketBase compares the raw JSON array text"),
    Difference('tags ~ "tag_bug"', 30, 8, "we need every element to match"),
    Difference('done = "true"', 0, 15, "a declared boolean reads the text true"),
    Difference('points < "abc"', 61, None, "text sorts after numbers in SQLite; we refuse"),
]


@pytest.mark.parametrize("case", DIFFERENCES, ids=[c.filter for c in DIFFERENCES])
def test_deliberate_differences_stay_as_documented(pocketbase: Loaded, case: Difference) -> None:
    params = {"filter": case.filter, "perPage": "500"}
    answer = httpx.get(f"{pocketbase.server.url}{RECORDS}", params=params)
    assert answer.status_code == 200, answer.text
    assert answer.json()["totalItems"] == case.pocketbase, case.why

    now = datetime.now(UTC)
    if case.ours is None:
        with pytest.raises(ProtocolError) as refused:
            compile_filter(parse_filter(case.filter), EntityResolver(CARDS), now=now)
        assert refused.value.code == "invalid_filter"
        return
    predicate = compile_filter(parse_filter(case.filter), EntityResolver(CARDS), now=now)
    assert sum(1 for r in pocketbase.records if predicate(r)) == case.ours, case.why


@dataclass(frozen=True)
class Binary:
    name: str
    content: bytes | None  # None: a copy of the installed binary with one byte changed


BINARIES = [
    Binary("an empty file", b""),
    Binary("a script", b"#!/bin/sh\necho pocketbase version 0.40.6\n"),
    Binary("the pinned binary with one byte changed", None),
]


@pytest.mark.parametrize("case", BINARIES, ids=[b.name for b in BINARIES])
def test_only_the_pinned_binary_is_run(tmp_path: Path, case: Binary) -> None:
    installed = pocketbase_binary()
    assert verified(installed) == installed
    content = case.content
    if content is None:
        original = installed.read_bytes()
        content = original[:-1] + bytes([original[-1] ^ 1])
    fake = tmp_path / "pocketbase"
    fake.write_bytes(content)
    refusal = re.escape(f"is not the pinned PocketBase {POCKETBASE_VERSION} binary")
    with pytest.raises(PocketBaseError, match=refusal):
        verified(fake)
