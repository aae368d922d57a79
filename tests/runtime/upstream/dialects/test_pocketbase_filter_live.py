"""What the planner writes into PocketBase's ``filter`` selects what the local evaluator selects.

The cards of the differential test (`test_pocketbase_differential.py`) are
loaded into a real PocketBase 0.40.6 and read back through the runtime's own
record projection (`runtime.upstream.to_protocol`, so ``""`` reads as null as
it does when served). Every filter of that test, its deliberate differences
and the cases below is planned for the ``pocketbase`` dialect with every
operator offered natively; the rendered ``filter`` is sent to PocketBase:

* pushed whole: PocketBase must select exactly what the local evaluator selects
  over the same records, since the runtime may then let PocketBase page;
* pushed in part: PocketBase must keep every record the local evaluator
  selects (the local check removes the rest);
* kept local: nothing to send, and the case says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

import httpx
import pytest

from runtime.mapping import FilterParam
from runtime.protocol import ProtocolError
from runtime.query import EntityResolver, compile_filter, parse_filter, plan
from runtime.upstream import dialect_for, to_protocol
from tests.fixtures.pocketbase import create_collection, insert_records, start_pocketbase
from tests.fixtures.servers import KanbanServer
from tests.runtime.query.test_pocketbase_differential import (
    CARDS,
    CASES,
    COLLECTION,
    DIFFERENCES,
    RECORDS,
    _pocketbase_card,
)

OFFERED = {
    "string": ("=", "!=", "<", "<=", ">", ">=", "~", "!~"),
    "number": ("=", "!=", "<", "<=", ">", ">="),
    "datetime": ("=", "!=", "<", "<=", ">", ">="),
    "boolean": ("=", "!="),
    "enum": ("=", "!="),
    "list<enum>": ("?=", "?!="),
}
NATIVE = replace(
    CARDS,
    filters=MappingProxyType(
        {
            name: MappingProxyType({op: FilterParam("filter", True) for op in OFFERED[f.type]})
            for name, f in CARDS.fields.items()
        }
    ),
)


@dataclass(frozen=True)
class Loaded:
    url: str
    records: list[dict[str, Any]]


@pytest.fixture(scope="module")
def pocketbase(kanban_rich: KanbanServer) -> Iterator[Loaded]:
    answer = httpx.get(
        f"{kanban_rich.api}/cards/", params={"page_size": 1000}, headers=kanban_rich.headers
    )
    answer.raise_for_status()
    with start_pocketbase() as server:
        create_collection(server, "cards", COLLECTION)
        stored = insert_records(
            server, "cards", [_pocketbase_card(c) for c in answer.json()["results"]]
        )
        yield Loaded(server.url, [to_protocol(CARDS, r) for r in stored])


@dataclass(frozen=True)
class Case:
    filter: str
    sent: str | None  # the filter PocketBase is told; None when it is kept local
    whole: bool = True


EXTRA = [
    Case('due < "2026-10-01"', '(due != "" && due < "2026-10-01 00:00:00.000Z")'),
    Case('due <= "2026-10-16"', '(due != "" && due <= "2026-10-16 00:00:00.000Z")'),
    Case('due > "2026-10-16"', '(due != "" && due > "2026-10-16 00:00:00.000Z")'),
    Case('opened < "2026-03-01T05:18:00+02:00"',
         '(opened != "" && opened < "2026-03-01 03:18:00.000Z")'),
    Case('due = "2026-10-16"', 'due = "2026-10-16 00:00:00.000Z"'),
    Case('tags ?= "tag_bug"', 'tags:each ?= "tag_bug"'),
    Case('tags ?!= "tag_bug" && done = true', 'tags:each ?!= "tag_bug" && done = true'),
    Case('tags ?= "tag_bug" && tags ?= "tag_ops"', None, whole=False),
    Case('done = "true"', None, whole=False),
    Case('title = 5', None, whole=False),
    Case('(title ~ "login" || priority = "high") && points > 1',
         '(title ~ "login" || priority = "high") && points > 1'),
    Case('title ~ "login" && "Welcome card" != title', 'title ~ "login"', whole=False),
    Case('due != "" && due < @now', 'due != ""', whole=False),
]  # fmt: skip
ALL = [c.filter for c in CASES] + [d.filter for d in DIFFERENCES]


def _local(records: list[dict[str, Any]], text: str) -> set[str] | None:
    resolver = EntityResolver(NATIVE)
    try:
        predicate = compile_filter(parse_filter(text), resolver, now=datetime.now(UTC))
    except ProtocolError:  # a filter the protocol refuses is never planned
        return None
    return {r["id"] for r in records if predicate(r)}


def _upstream(url: str, sent: str) -> set[str]:
    answer = httpx.get(f"{url}{RECORDS}", params={"filter": sent, "perPage": "1000"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["totalItems"] == len(body["items"])
    return {item["id"] for item in body["items"]}


def _check(loaded: Loaded, text: str) -> tuple[str | None, bool]:
    """(what was sent, pushed whole) after checking PocketBase against the local evaluator."""
    expected = _local(loaded.records, text)
    if expected is None:
        return None, False
    told = plan(NATIVE, parse_filter(text), (), dialect_for("pocketbase"), can_page=True)
    sent = told.params.get("filter")
    if sent is None:
        return None, False
    got = _upstream(loaded.url, sent)
    whole = told.residual == 0
    if whole:
        assert got == expected, f"{text!r} sent as {sent!r}"
    else:
        assert expected <= got, f"{text!r} sent as {sent!r} drops records"
    return sent, whole


@pytest.mark.parametrize("case", EXTRA, ids=[c.filter for c in EXTRA])
def test_rendered_filters_agree_with_the_local_evaluator(pocketbase: Loaded, case: Case) -> None:
    assert _check(pocketbase, case.filter) == (case.sent, case.whole and case.sent is not None)


KEPT_LOCAL = {
    '"Welcome card" = title': "a literal on the left",
    "1 = 1": "no field",
    "null = ''": "no field",
    "'' != null": "no field",
    "title ~ null": "a null pattern matches nothing: nothing to ask for",
    "title !~ null": "a null pattern matches nothing: nothing to ask for",
    'priority ~ "urg"': "the mapping offers = and != on enums",
    'tags:each = "tag_bug"': "all-element forms are not offered",
    'tags:each != "tag_bug"': "all-element forms are not offered",
    'tags:each ?~ "fea"': "not offered",
    "tags:length = 0": "not offered",
    "tags:length > 2": "not offered",
    "tags:length >= 1": "not offered",
    'tags:each ?= "tag_ops" && tags:each ?= "tag_bug"': "one join per path upstream",
    "opened < @now": "macros",
    "opened >= @yearStart": "macros",
    'points > "5"': "text against a number",
    'done = "true"': "text against a boolean",
    'points < "abc"': "refused here",
    'tags ~ "tag_bug"': "a bare list field is its JSON text upstream",
}


def test_every_differential_case_is_pushed_only_where_it_agrees(pocketbase: Loaded) -> None:
    outcomes = {text: _check(pocketbase, text) for text in ALL}
    whole = [text for text, (_, w) in outcomes.items() if w]
    local = [text for text, (sent, _) in outcomes.items() if sent is None]
    partial = [text for text, (sent, w) in outcomes.items() if sent and not w]
    # Most of PocketBase's own grammar goes whole; what stays local is listed, with why.
    assert len(whole) == len(outcomes) - len(local) - len(partial) >= 70
    assert set(local) == set(KEPT_LOCAL)
    assert set(partial) == {
        'done = true && (due > "2026-12-01 00:00:00.000Z" || tags:length >= 4)',
        'due != "" && due >= @todayStart',
        'due != "" && due > @monthEnd',
        "@year >= 2026 && done = true",
    }
