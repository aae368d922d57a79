"""Pushed-down and local reads give the same answers, over real HTTP.

One Django sample (``--seed rich``) serves three runtimes, each with a variant
of ``mappings/kanban-drf.yaml``:

``local``
    every ``filter`` and ``sort`` removed: the runtime scans and decides everything.
``unproven``
    the checked-in mapping: filters and sorts are pushed down to narrow the scan,
    but paging and totals are still computed here.
``proven``
    every filter param and sort marked ``proven: true``: when the whole query is
    pushed down, the upstream pages and counts.

Every case must give the same page, the same records in the same order and the
same totals in all three, and all three must equal an answer computed here from
the raw upstream data (all cards fetched once from the sample's own API) with a
hand-written predicate and an independent sort, so "all three agree but are all
wrong" fails too.

Whether the proven runtime really delegates paging is read from the sample's
own access log (``--verbose`` logs every request it serves, with its query
string, before the response is sent): a delegated read asks the upstream for
exactly the protocol page (``page=P&page_size=N``), while a local read scans
from the first page with the mapping's largest page size (``page_size=1000``).
The requests are sequential, so the lines written while one read was in flight
are that read's upstream requests.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import yaml

from samples.kanban_drf.seed import RICH_TAGS
from tests.fixtures.runtime import KANBAN_DRF, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

Card = dict[str, Any]
# The rich seed's lists and tags, checked against the upstream by the fixture.
LIST_TITLES = {"list_todo": "To Do", "list_doing": "Doing"}
TAG_NAMES = dict(RICH_TAGS)
CONFIGS = ("local", "unproven", "proven")
RECORDS = "/api/collections/cards/records"
SCAN_PAGE_SIZE = "1000"  # the mapping's pagination.maxSize: a local scan's page size
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 1000
_REQUEST = re.compile(r"GET /api/cards/(?:\?(\S*))? \d{3} ")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _without_pushdown(doc: dict[str, Any]) -> None:
    for entity in doc["entities"].values():
        entity.pop("filter", None)
        entity.pop("sort", None)


def _all_proven(doc: dict[str, Any]) -> None:
    for entity in doc["entities"].values():
        for ops in entity.get("filter", {}).values():
            for op, spelled in ops.items():
                param = spelled if isinstance(spelled, str) else spelled["param"]
                ops[op] = {"param": param, "proven": True}
        if "sort" in entity:
            entity["sort"]["proven"] = True


def _variant(directory: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    doc = yaml.safe_load(KANBAN_DRF.read_text())
    change(doc)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / KANBAN_DRF.name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@dataclass(frozen=True)
class Setup:
    upstream: KanbanServer
    runtimes: dict[str, RuntimeServer]
    cards: list[Card]  # in the upstream's own order (by id)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    root = tmp_path_factory.mktemp("pushdown")
    mappings = {
        "local": _variant(root / "local", _without_pushdown),
        "unproven": KANBAN_DRF,
        "proven": _variant(root / "proven", _all_proven),
    }
    with contextlib.ExitStack() as stack:
        upstream = stack.enter_context(start_kanban(seed="rich", extra_args=("--verbose",)))
        runtimes = {
            name: stack.enter_context(start_runtime(path, upstream))
            for name, path in mappings.items()
        }
        raw = {
            name: httpx.get(
                f"{upstream.api}/{name}/", params={"page_size": 1000}, headers=upstream.headers
            ).json()
            for name in ("cards", "lists", "tags")
        }
        assert len(raw["cards"]["results"]) == raw["cards"]["count"] == 61
        assert {r["id"]: r["title"] for r in raw["lists"]["results"]} == LIST_TITLES
        assert {r["id"]: r["name"] for r in raw["tags"]["results"]} == TAG_NAMES
        yield Setup(upstream, runtimes, raw["cards"]["results"])


# ---------------------------------------------------------------- hand-written expectations


def lower(text: str) -> str:
    """ASCII-only case folding, as PocketBase's LIKE does it."""
    return text.translate(_ASCII_LOWER)


def created(card: Card) -> datetime:
    return datetime.fromisoformat(card["created"])


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def tag_names(card: Card) -> list[str]:
    return [TAG_NAMES[t] for t in card["tags"]]


def _sort_value(card: Card, name: str) -> Any:
    if name == "list.title":
        return LIST_TITLES[card["list"]]
    value = card[name]
    if name == "created":
        return created(card)
    if name == "tags":
        return value[0] if value else None
    return value


def _sort_key(name: str) -> Callable[[Card], tuple[Any, ...]]:
    def key(card: Card) -> tuple[Any, ...]:
        value = _sort_value(card, name)
        return (0,) if value is None else (1, value)

    return key


def expected_order(cards: list[Card], sort: str) -> list[Card]:
    """Stable sort, key by key from the last; nulls first ascending, last descending."""
    out = list(cards)
    for term in reversed([t for t in sort.split(",") if t]):
        out.sort(key=_sort_key(term.removeprefix("-")), reverse=term.startswith("-"))
    return out


def everything(card: Card) -> bool:
    return True


@dataclass(frozen=True)
class Case:
    name: str
    filter: str
    keep: Callable[[Card], bool]
    matches: int  # cards the filter keeps, before paging
    sort: str = ""
    page: int | None = None
    per_page: int | None = None
    skip_total: bool = False
    pushed: bool = (
        False  # the whole query is pushed down: the proven runtime lets the upstream page
    )
    bug: str | None = None
    # django-filter refuses an unknown choice with 400: the runtime then drops the
    # pushdown and scans, so the local check alone decides.
    refused: bool = False

    def params(self) -> dict[str, str]:
        params = {"filter": self.filter, "sort": self.sort}
        if self.page is not None:
            params["page"] = str(self.page)
        if self.per_page is not None:
            params["perPage"] = str(self.per_page)
        if self.skip_total:
            params["skipTotal"] = "1"
        return {k: v for k, v in params.items() if v}


PAGING = [
    Case("everything, first page", "", everything, 61, pushed=True),
    Case("page 2 of 25", "", everything, 61, page=2, per_page=25, pushed=True),
    Case("last partial page", "", everything, 61, page=7, per_page=10, pushed=True),
    Case("past the last page", "", everything, 61, page=5, per_page=20, pushed=True),
    Case("one per page, the last", "", everything, 61, page=61, per_page=1, pushed=True),
    Case("skipTotal", "", everything, 61, per_page=5, skip_total=True, pushed=True),
    Case(
        "perPage above the cap",
        'title ~ "%e%"',
        lambda c: "e" in lower(c["title"]),
        55,
        per_page=5000,
    ),
]
PUSHABLE = [
    Case(
        "title equals, non-ASCII",
        'title = "Café menu redesign"',
        lambda c: c["title"] == "Café menu redesign",
        1,
        pushed=True,
    ),
    Case(
        "title equals, quotes",
        "title = 'Rename \"Inbox\" column'",
        lambda c: c["title"] == 'Rename "Inbox" column',
        1,
        pushed=True,
    ),
    Case(
        "title equals is case-sensitive",
        'title = "FIX LOGIN PAGE #33"',
        lambda c: c["title"] == "FIX LOGIN PAGE #33",
        0,
        pushed=True,
    ),
    Case(
        "title contains",
        'title ~ "login"',
        lambda c: "login" in lower(c["title"]),
        11,
        pushed=True,
    ),
    Case(
        "title contains, mixed case",
        'title ~ "LOGIN page"',
        lambda c: "login page" in lower(c["title"]),
        6,
        pushed=True,
    ),
    Case(
        "title contains quotes",
        "title ~ '\"Inbox\"'",
        lambda c: '"inbox"' in lower(c["title"]),
        1,
        pushed=True,
    ),
    Case(
        "title contains punctuation",
        'title ~ "v2.0 (beta) & docs"',
        lambda c: "v2.0 (beta) & docs" in lower(c["title"]),
        1,
        pushed=True,
    ),
    Case(
        "enum",
        'priority = "urgent"',
        lambda c: c["priority"] == "urgent",
        12,
        pushed=True,
    ),
    Case(
        "enum value none",
        'priority = "none"',
        lambda c: c["priority"] == "none",
        12,
        pushed=True,
    ),
    Case("boolean true", "done = true", lambda c: c["done"] is True, 15, pushed=True),
    Case("boolean false", "done = false", lambda c: c["done"] is False, 46, pushed=True),
    Case(
        "boolean as text",
        'done = "false"',
        lambda c: c["done"] is False,
        46,
        pushed=True,
    ),
    Case("ref", 'list = "list_doing"', lambda c: c["list"] == "list_doing", 20, pushed=True),
    Case("id", 'id = "card_r042"', lambda c: c["id"] == "card_r042", 1, pushed=True),
    Case("day equals", 'due = "2026-10-16"', lambda c: c["due"] == "2026-10-16", 1, pushed=True),
    Case(
        "day after or on",
        'due >= "2026-12-01"',
        lambda c: c["due"] is not None and c["due"] >= "2026-12-01",
        10,
        pushed=True,
    ),
    Case(
        "day after excludes the day",
        'due > "2026-12-07"',
        lambda c: c["due"] is not None and c["due"] > "2026-12-07",
        8,
        pushed=True,
    ),
    Case(
        "day before",
        'due < "2026-08-16"',
        lambda c: c["due"] is not None and c["due"] < "2026-08-16",
        2,
        pushed=True,
    ),
    Case(
        "day before or on",
        'due <= "2026-08-16"',
        lambda c: c["due"] is not None and c["due"] <= "2026-08-16",
        3,
        pushed=True,
    ),
    Case(
        "day after a datetime with a zone",
        'due > "2026-09-01T23:00:00-02:00"',
        lambda c: c["due"] is not None and c["due"] > "2026-09-02",
        28,
        pushed=True,
    ),
    Case(
        "day equals a datetime's UTC date",
        'due = "2026-10-15T22:00:00-05:00"',
        lambda c: c["due"] == "2026-10-16",
        1,
        pushed=True,
    ),
    Case(
        "day after a PocketBase datetime",
        'due > "2026-09-01 00:00:00.000Z"',
        lambda c: c["due"] is not None and c["due"] > "2026-09-01",
        29,
        pushed=True,
    ),
    Case(
        "datetime after a date",
        'created > "2026-03-01"',
        lambda c: created(c) > at("2026-03-01T00:00:00Z"),
        44,
        pushed=True,
    ),
    Case(
        "datetime at or after, with a zone",
        'created >= "2026-03-01T04:18:00+01:00"',
        lambda c: created(c) >= at("2026-03-01T03:18:00Z"),
        44,
        pushed=True,
    ),
    Case(
        "datetime before, PocketBase's format",
        'created < "2026-02-01 00:00:00.000Z"',
        lambda c: created(c) < at("2026-02-01T00:00:00Z"),
        8,
        pushed=True,
    ),
    Case(
        "datetime at or before includes the instant",
        'created <= "2026-01-15T00:03:00Z"',
        lambda c: created(c) <= at("2026-01-15T00:03:00Z"),
        3,
        pushed=True,
    ),
    Case(
        "datetime without a zone is UTC",
        'created > "2026-03-01T03:17"',
        lambda c: created(c) > at("2026-03-01T03:17:00Z"),
        44,
        pushed=True,
    ),
    Case(
        "datetime with microseconds",
        'created < "2026-01-15T00:03:00.000001Z"',
        lambda c: created(c) < at("2026-01-15T00:03:00.000001Z"),
        3,
        pushed=True,
    ),
    Case(
        "datetime range",
        'created >= "2026-03-01" && created < "2026-04-01"',
        lambda c: at("2026-03-01T00:00:00Z") <= created(c) < at("2026-04-01T00:00:00Z"),
        11,
        pushed=True,
    ),
    Case(
        "two fields",
        'priority = "high" && done = false',
        lambda c: c["priority"] == "high" and not c["done"],
        9,
        pushed=True,
    ),
    Case(
        "ref and a day range",
        'list = "list_todo" && due >= "2026-10-01" && due < "2026-12-01"',
        lambda c: (
            c["list"] == "list_todo"
            and c["due"] is not None
            and "2026-10-01" <= c["due"] < "2026-12-01"
        ),
        8,
        pushed=True,
    ),
    Case(
        "three fields",
        'title ~ "fix" && done = false && priority = "medium"',
        lambda c: "fix" in lower(c["title"]) and not c["done"] and c["priority"] == "medium",
        2,
        pushed=True,
    ),
    Case(
        "a comment between pushed parts",
        'done = true // finished\n&& priority = "urgent"',
        lambda c: c["done"] and c["priority"] == "urgent",
        3,
        pushed=True,
    ),
    Case(
        "skipTotal with a filter",
        "done = false",
        lambda c: not c["done"],
        46,
        per_page=10,
        page=2,
        skip_total=True,
        pushed=True,
    ),
]
PUSHED_SORTS = [
    Case("sort by title", "", everything, 61, sort="title", pushed=True),
    Case("sort by id, descending", "", everything, 61, sort="-id", page=2, pushed=True),
    Case(
        "sort by day descending, then title",
        "",
        everything,
        61,
        sort="-due,title",
        per_page=40,
        pushed=True,
    ),
    Case(
        "sort by day ascending: nulls first",
        "done = false",
        lambda c: not c["done"],
        46,
        sort="due",
        per_page=40,
        pushed=True,
    ),
    Case(
        "sort by enum text, then newest",
        'list = "list_todo"',
        lambda c: c["list"] == "list_todo",
        41,
        sort="priority,-created",
        pushed=True,
    ),
    Case(
        "sort by three keys",
        "",
        everything,
        61,
        sort="done,-priority,title",
        page=2,
        per_page=20,
        pushed=True,
    ),
    Case(
        "filtered, sorted, third page",
        "done = false",
        lambda c: not c["done"],
        46,
        sort="-created",
        page=3,
        per_page=7,
        pushed=True,
    ),
    Case(
        "datetime-to-day filter, sorted",
        'due > "2026-09-01T23:00:00-02:00" && done = false',
        lambda c: c["due"] is not None and c["due"] > "2026-09-02" and not c["done"],
        15,
        sort="-due,title",
        page=2,
        per_page=5,
        pushed=True,
    ),
]
LOCAL = [
    Case(
        "or on one field",
        'priority = "low" || priority = "urgent"',
        lambda c: c["priority"] in ("low", "urgent"),
        25,
    ),
    Case(
        "or across fields, with null",
        "done = true || due = null",
        lambda c: c["done"] or c["due"] is None,
        42,
    ),
    Case(
        "parentheses",
        '(priority = "high" || priority = "urgent") && done = false',
        lambda c: c["priority"] in ("high", "urgent") and not c["done"],
        18,
    ),
    Case(
        "&& binds tighter than ||",
        'priority = "low" || priority = "high" && done = true',
        lambda c: c["priority"] == "low" or (c["priority"] == "high" and c["done"]),
        16,
    ),
    Case(
        "or of ranges",
        'created < "2026-02-01" || created > "2026-07-01"',
        lambda c: (
            created(c) < at("2026-02-01T00:00:00Z") or created(c) > at("2026-07-01T00:00:00Z")
        ),
        11,
    ),
    Case(
        "day or null",
        'due >= "2026-12-01" || due = null',
        lambda c: c["due"] is None or c["due"] >= "2026-12-01",
        37,
    ),
    Case("enum !=", 'priority != "none"', lambda c: c["priority"] != "none", 49),
    Case("day != null", "due != null", lambda c: c["due"] is not None, 34),
    Case("title !=", 'title != "Welcome card"', lambda c: c["title"] != "Welcome card", 60),
    Case("ref !=", 'list != "list_todo"', lambda c: c["list"] != "list_todo", 20),
    Case("id !=", 'id != "card_seed"', lambda c: c["id"] != "card_seed", 60),
    Case("any tag", 'tags ?= "tag_docs"', lambda c: "tag_docs" in c["tags"], 15),
    Case(
        "some tag differs, or none",
        'tags ?!= "tag_bug"',
        lambda c: not c["tags"] or any(t != "tag_bug" for t in c["tags"]),
        53,
    ),
    Case(
        "every tag equals",
        'tags = "tag_bug"',
        lambda c: bool(c["tags"]) and all(t == "tag_bug" for t in c["tags"]),
        8,
    ),
    Case("no tag equals", 'tags != "tag_bug"', lambda c: "tag_bug" not in c["tags"], 31),
    Case("tag count", "tags:length >= 3", lambda c: len(c["tags"]) >= 3, 12),
    Case("tag each", 'tags:each ?= "tag_ops"', lambda c: "tag_ops" in c["tags"], 12),
    Case(
        "two tags",
        'tags ?= "tag_ops" && tags ?= "tag_bug"',
        lambda c: "tag_ops" in c["tags"] and "tag_bug" in c["tags"],
        6,
    ),
    Case(
        "starts with",
        'title ~ "fix%"',
        lambda c: lower(c["title"]).startswith("fix"),
        16,
    ),
    Case(
        "ends with # and two characters from 10 to 19",
        'title ~ "%#1_"',
        lambda c: re.search(r"#1.$", c["title"]) is not None,
        9,
    ),
    Case(
        "one-character wildcard",
        'title ~ "_ix %"',
        lambda c: len(c["title"]) > 3 and lower(c["title"][1:4]) == "ix ",
        16,
    ),
    Case(
        "raw pattern 100%: starts with 100",
        'title ~ "100%"',
        lambda c: c["title"].startswith("100"),
        0,
    ),
    Case("not contains", 'title !~ "login"', lambda c: "login" not in lower(c["title"]), 50),
    Case("non-ASCII contains", 'title ~ "café"', lambda c: "café" in lower(c["title"]), 1),
    Case(
        "non-ASCII letters do not fold",
        'title ~ "CAFÉ"',
        lambda c: "cafÉ" in lower(c["title"]),
        0,
    ),
    Case(
        "contains with a leading space",
        'title ~ " #1"',
        lambda c: " #1" in c["title"],
        10,
    ),
    Case(
        "contains with a trailing space",
        'title ~ "page "',
        lambda c: "page " in lower(c["title"]),
        5,
    ),
    Case(
        "equals with a leading space",
        'title = " Café menu redesign"',
        lambda c: c["title"] == " Café menu redesign",
        0,
    ),
    Case(
        "contains with a trailing space, one per page",
        'title ~ "page "',
        lambda c: "page " in lower(c["title"]),
        5,
        per_page=1,
    ),
    Case(
        "equals with a leading space, second page",
        'title = " Café menu redesign"',
        lambda c: c["title"] == " Café menu redesign",
        0,
        page=2,
        per_page=1,
    ),
    Case("day is null", "due = null", lambda c: c["due"] is None, 27),
    Case("day is blank", 'due = ""', lambda c: c["due"] is None, 27),
    Case(
        "day is blank, one per page",
        'due = ""',
        lambda c: c["due"] is None,
        27,
        per_page=1,
    ),
    Case("title is blank", 'title = ""', lambda c: c["title"] == "", 0),
    Case("enum value not offered", 'priority = "bogus"', lambda c: False, 0),
    Case(
        "ref that does not exist",
        'list = "list_nope"',
        lambda c: False,
        0,
        refused=True,
    ),
    Case(
        "literal on the left",
        '"Welcome card" = title',
        lambda c: c["title"] == "Welcome card",
        1,
    ),
    Case(
        ":lower",
        'title:lower = "fix login page #33"',
        lambda c: lower(c["title"]) == "fix login page #33",
        1,
    ),
    Case("? on a single value", 'priority ?= "high"', lambda c: c["priority"] == "high", 12),
    Case("a constant term", "1 = 1 && done = true", lambda c: c["done"], 15),
    Case(
        "the same param twice",
        'due >= "2026-09-01" && due >= "2026-10-01"',
        lambda c: c["due"] is not None and c["due"] >= "2026-10-01",
        22,
    ),
]
THROUGH_REFS = [
    Case("through a ref", 'list.title = "Doing"', lambda c: c["list"] == "list_doing", 20),
    Case(
        "through a ref, contains",
        'list.title ~ "do" && done = true',
        lambda c: "do" in lower(LIST_TITLES[c["list"]]) and c["done"],
        15,
    ),
    Case(
        "through a list of refs, any",
        'tags.name ?= "docs"',
        lambda c: "docs" in tag_names(c),
        15,
    ),
    Case(
        "through a list of refs, every",
        'tags.name = "bug"',
        lambda c: bool(c["tags"]) and all(n == "bug" for n in tag_names(c)),
        8,
    ),
    Case(
        "one shared join row",
        'tags.name ?= "docs" && tags.name ?= "ops"',
        lambda c: False,
        0,
    ),
    Case(
        "sort through a ref",
        'priority = "high"',
        lambda c: c["priority"] == "high",
        12,
        sort="list.title,-created",
    ),
]
LOCAL_SORTS = [
    Case(
        "sort by a ref the upstream cannot sort",
        "",
        everything,
        61,
        sort="list,-created",
        per_page=50,
    ),
    Case("sort by first tag", "", everything, 61, sort="-tags,id", per_page=61),
    Case(
        "pushable and local sort keys",
        'priority != "none"',
        lambda c: c["priority"] != "none",
        49,
        sort="-due,list",
        page=2,
        per_page=15,
    ),
    Case(
        "local filter, sorted and paged",
        'title ~ "%o%"',
        lambda c: "o" in lower(c["title"]),
        56,
        sort="-created",
        page=2,
        per_page=9,
    ),
    Case(
        "local filter, skipTotal",
        'priority != "none"',
        lambda c: c["priority"] != "none",
        49,
        per_page=10,
        page=3,
        skip_total=True,
    ),
    Case(
        "local filter, past the last page",
        'tags ?= "tag_design"',
        lambda c: "tag_design" in c["tags"],
        10,
        page=3,
        per_page=10,
    ),
]
CASES = PAGING + PUSHABLE + PUSHED_SORTS + LOCAL + THROUGH_REFS + LOCAL_SORTS


def _param(case: Case) -> Any:
    marks = [pytest.mark.xfail(reason=case.bug, strict=True)] if case.bug else []
    return pytest.param(case, id=case.name, marks=marks)


# ---------------------------------------------------------------- upstream access log


def _upstream_log(upstream: KanbanServer) -> str:
    return upstream.stderr_tail(1 << 30)


def _requests(log: str) -> list[dict[str, str]]:
    """The query of every card listing the upstream served, in order."""
    found = []
    for match in _REQUEST.finditer(log):
        query = parse_qs(match.group(1) or "", keep_blank_values=True)
        found.append({k: v[-1] for k, v in query.items()})
    return found


def _delegated(requests: list[dict[str, str]], page: int, per_page: int) -> bool:
    """The upstream was asked for exactly the protocol page, and nothing was scanned."""
    first = requests[0]
    return (
        first.get("page") == str(page)
        and first.get("page_size") == str(per_page)
        and all(r.get("page_size") != SCAN_PAGE_SIZE for r in requests)
    )


def _scanned(requests: list[dict[str, str]]) -> bool:
    first = requests[0]
    return first.get("page") == "1" and first.get("page_size") == SCAN_PAGE_SIZE


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_every_configuration_gives_the_expected_page(setup: Setup, case: Case) -> None:
    kept = [c for c in setup.cards if case.keep(c)]
    assert len(kept) == case.matches, "the hand-written predicate disagrees with its count"
    page = case.page or 1
    per_page = min(case.per_page or DEFAULT_PER_PAGE, MAX_PER_PAGE)
    ordered = expected_order(kept, case.sort)
    want_ids = [c["id"] for c in ordered[(page - 1) * per_page : page * per_page]]
    total = -1 if case.skip_total else case.matches
    pages = -1 if case.skip_total else math.ceil(case.matches / per_page)

    answers: dict[str, dict[str, Any]] = {}
    upstream_requests: dict[str, list[dict[str, str]]] = {}
    for config in CONFIGS:
        before = len(_upstream_log(setup.upstream))
        answer = httpx.get(f"{setup.runtimes[config].url}{RECORDS}", params=case.params())
        assert answer.status_code == 200, f"{config}: {answer.text}"
        answers[config] = body = answer.json()
        upstream_requests[config] = _requests(_upstream_log(setup.upstream)[before:])
        assert [r["id"] for r in body["items"]] == want_ids, config
        assert (body["page"], body["perPage"]) == (page, per_page), config
        assert (body["totalItems"], body["totalPages"]) == (total, pages), config

    assert answers["unproven"] == answers["local"]
    assert answers["proven"] == answers["local"]

    # With no filter and no sort nothing needs proving, so every runtime lets the
    # upstream page; otherwise only the proven one does, and only when all is pushed.
    plain = not case.filter and not case.sort
    delegates = {"local": plain, "unproven": plain, "proven": plain or case.pushed}
    for config in CONFIGS:
        requests = upstream_requests[config]
        assert requests, f"{config}: the read never reached the upstream"
        if case.refused and config != "local":
            assert "list" in requests[0] and set(requests[-1]) == {"page", "page_size"}, requests
            assert requests[-1]["page_size"] == SCAN_PAGE_SIZE, f"{config}: {requests}"
        elif delegates[config]:
            assert _delegated(requests, page, per_page), f"{config}: {requests}"
        else:
            assert _scanned(requests), f"{config}: {requests}"
    assert all(set(r) == {"page", "page_size"} for r in upstream_requests["local"])
