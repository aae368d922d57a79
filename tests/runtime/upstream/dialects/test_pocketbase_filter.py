"""The planner for a dialect with a native filter language (PocketBase): what is told, whole.

Each scenario is a protocol query and exactly the parameters the upstream is
told, with how many top-level conjuncts were pushed and kept local, and whether
paging may be delegated. The differential test against a real PocketBase
(`test_pocketbase_filter_live.py`) proves the rendered forms select what the local
evaluator selects; this table pins the rendering itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import pytest

from runtime.mapping import Entity, Field, FilterParam, SortSpec
from runtime.query import MAX_FILTER_LENGTH, parse_filter, parse_sort, plan
from runtime.upstream import DjangoFilterDialect, dialect_for, native_filter

POCKETBASE = dialect_for("pocketbase")
OPS = {
    "string": ("=", "!=", "<", "<=", ">", ">=", "~", "!~"),
    "number": ("=", "!=", "<", "<=", ">", ">="),
    "datetime": ("=", "!=", "<", "<=", ">", ">="),
    "boolean": ("=", "!="),
    "enum": ("=", "!="),
    "ref": ("=", "!="),
    "list<ref>": ("?=",),
    "list<enum>": ("?=", "?!="),
}


def _field(name: str, type: str, source: str | None = None, **extra: Any) -> Field:
    return Field(name=name, type=type, source=tuple((source or name).split(".")), **extra)


FIELDS = (
    _field("title", "string"),
    _field("status", "enum", values=("open", "closed")),
    _field("list", "ref", "list_id", entity="lists"),
    _field("done", "boolean"),
    _field("points", "number"),
    _field("due", "datetime"),
    _field("day", "string", day_key=True),
    _field("tags", "list<ref>", "tag_ids", entity="tags"),
    _field("labels", "list<enum>", values=("a", "b")),
    _field("meta", "json"),
    _field("nested", "string", "attributes.title"),
    _field("odd", "string", "odd-name"),
)


def _filters(proven: bool, param: str = "filter") -> dict[str, Any]:
    table: dict[str, Any] = {"id": {"=": FilterParam(param, proven)}}
    for f in FIELDS:
        kind = "string" if f.day_key else f.type
        ops = OPS.get(kind, ("=",))
        table[f.name] = MappingProxyType({op: FilterParam(param, proven) for op in ops})
    return table


CARDS = Entity(
    name="cards", module="board", path="/cards", detail_path="/cards/{id}",
    id_source=("id",), id_type="string", fields=MappingProxyType({f.name: f for f in FIELDS}),
    label="title", filters=MappingProxyType(_filters(True)),
    sort=SortSpec("sort", ("title", "due", "points"), proven=True),
)  # fmt: skip


@dataclass(frozen=True)
class Case:
    name: str
    filter: str
    told: str | None  # the filter parameter; None when nothing is pushed
    pushed: int
    residual: int
    delegate: bool
    sort: str = ""
    told_sort: str | None = None


CASES = [
    Case("text contains", 'title ~ "milk"', 'title ~ "milk"', 1, 0, True),
    Case("quotes and backslashes are escaped", r'title = "say \"hi\" C:\\tmp"',
         r'title = "say \"hi\" C:\\tmp"', 1, 0, True),
    Case("newline and tab are spelled", 'title = "a\\nb\\tc"', 'title = "a\\nb\\tc"', 1, 0, True),
    Case("the other quote style is rewritten", "title = 'it\\'s'", 'title = "it\'s"', 1, 0, True),
    Case("a control character stays local", 'title = "bell\\u0007"', None, 0, 1, False),
    Case(":lower on text", 'title:lower = "milk"', 'title:lower = "milk"', 1, 0, True),
    Case("text null", "title = null", "title = null", 1, 0, True),
    Case("text ordering against null stays local", "title > null", None, 0, 1, False),
    Case("text against a number stays local", "title = 5", None, 0, 1, False),
    Case("ref renamed through its source", 'list = "l1"', 'list_id = "l1"', 1, 0, True),
    Case("enum", 'status != "open"', 'status != "open"', 1, 0, True),
    Case("?= on a single field is the plain operator", 'status ?= "open"', 'status = "open"',
         1, 0, True),
    Case("enum ordering is not offered", 'status > "a"', None, 0, 1, False),
    Case("boolean", "done = true", "done = true", 1, 0, True),
    Case("boolean against text stays local", 'done = "true"', None, 0, 1, False),
    Case("number", "points >= -2.5", "points >= -2.5", 1, 0, True),
    Case("an integral float is written as an integer", "points = 3.0", "points = 3", 1, 0, True),
    Case("number against numeric text stays local", 'points > "5"', None, 0, 1, False),
    Case("a datetime in the stored form", 'due = "2026-07-30T09:15:00+02:00"',
         'due = "2026-07-30 07:15:00.000Z"', 1, 0, True),
    Case("a date prefix is its midnight", 'due >= "2026-10-16"',
         '(due != "" && due >= "2026-10-16 00:00:00.000Z")', 1, 0, True),
    Case("ordering never reaches a blank date", 'due < "2026-10-01 00:00:00.000Z"',
         '(due != "" && due < "2026-10-01 00:00:00.000Z")', 1, 0, True),
    Case("a blank date", "due = null", 'due = ""', 1, 0, True),
    Case("sub-millisecond datetimes stay local", 'due > "2026-01-01T00:00:00.0001Z"',
         None, 0, 1, False),
    Case("day keys stay local", 'day = "2026-07-30"', None, 0, 1, False),
    Case("a list field is written per element", 'tags ?= "t1"', 'tag_ids:each ?= "t1"',
         1, 0, True),
    Case("explicit :each", 'labels:each ?!= "a"', 'labels:each ?!= "a"', 1, 0, True),
    Case("one list path twice stays local", 'tags ?= "t1" && tags ?= "t2"', None, 0, 2, False),
    Case("a bare list without ? stays local", 'tags = "t1"', None, 0, 1, False),
    Case("json stays local", "meta = null", None, 0, 1, False),
    Case("a nested source is not a PocketBase name", 'nested = "x"', None, 0, 1, False),
    Case("a source that is no identifier", 'odd = "x"', None, 0, 1, False),
    Case("paths through refs stay local", 'list.title = "Doing"', None, 0, 1, False),
    Case("a literal on the left stays local", '"milk" = title', None, 0, 1, False),
    Case("macros stay local", "due < @now", None, 0, 1, False),
    Case("two fields compared stay local", "title = status", None, 0, 1, False),
    Case("id", 'id = "c1"', 'id = "c1"', 1, 0, True),
    Case("an operator the mapping does not offer", 'id != "c1"', None, 0, 1, False),
    Case("an || group goes whole", '(status = "open" || points > 3) && done = false',
         '(status = "open" || points > 3) && done = false', 2, 0, True),
    Case("&& inside || keeps its brackets", 'done = true && points < 0 || title ~ "x"',
         '((done = true && points < 0) || title ~ "x")', 1, 0, True),
    Case("an || group with one local branch stays local, the rest goes",
         '(title ~ "x" || list.title = "y") && done = true', "done = true", 1, 1, False),
    Case("the sort goes with the filter", 'title ~ "x"', 'title ~ "x"', 1, 0, True,
         sort="-due,title", told_sort="-due,title"),
    Case("a sort the mapping does not offer keeps paging local", 'title ~ "x"', 'title ~ "x"',
         1, 0, False, sort="status"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_what_the_upstream_is_told(case: Case) -> None:
    told = plan(CARDS, parse_filter(case.filter), parse_sort(case.sort), POCKETBASE, can_page=True)
    assert told.params.get("filter") == case.told
    assert told.params.get("sort") == case.told_sort
    assert (told.pushed, told.residual, told.delegate) == (
        case.pushed,
        case.residual,
        case.delegate,
    )
    # Only the dialect's own parameters are ever sent.
    assert set(told.params) <= {"filter", "sort"}


def test_unproven_pushdowns_narrow_but_never_delegate_paging() -> None:
    unproven = replace(CARDS, filters=MappingProxyType(_filters(False)))
    told = plan(unproven, parse_filter('title ~ "x"'), (), POCKETBASE, can_page=True)
    assert told.params == {"filter": 'title ~ "x"'}
    assert (told.proven, told.delegate) == (False, False)


def test_an_unproven_any_operator_on_a_single_field_is_still_pushed() -> None:
    only_any = {"status": MappingProxyType({"?=": FilterParam("filter", proven=False)})}
    entity = replace(CARDS, filters=MappingProxyType(only_any))
    told = plan(entity, parse_filter('status ?= "open"'), (), POCKETBASE, can_page=True)
    assert told.params == {"filter": 'status = "open"'}
    assert (told.pushed, told.proven, told.delegate) == (1, False, False)


def test_a_filter_spelled_through_another_parameter_is_not_native() -> None:
    elsewhere = replace(CARDS, filters=MappingProxyType(_filters(True, param="q")))
    told = plan(elsewhere, parse_filter('title ~ "x"'), (), POCKETBASE, can_page=True)
    assert (dict(told.params), told.pushed, told.residual) == ({}, 0, 1)


def test_what_does_not_fit_the_upstream_limit_stays_local() -> None:
    # It parses here (under 3500 characters), but the stored form and the guards are longer.
    text = " && ".join(f'due > "2026-01-{1 + i % 28:02d}"' for i in range(150))
    told = plan(CARDS, parse_filter(text), (), POCKETBASE, can_page=True)
    sent = told.params["filter"]
    following = f'(due != "" && due > "2026-01-{1 + told.pushed % 28:02d} 00:00:00.000Z")'
    assert len(text) <= MAX_FILTER_LENGTH
    assert len(sent) <= MAX_FILTER_LENGTH < len(f"{sent} && {following}")
    assert told.pushed == sent.count("due >") and told.pushed + told.residual == 150
    assert told.residual > 0 and not told.delegate


def test_a_dialect_without_a_native_filter_keeps_the_parameter_per_comparison() -> None:
    assert native_filter(CARDS, parse_filter('title ~ "x"'), DjangoFilterDialect()) is None
    assert native_filter(CARDS, None, POCKETBASE) is not None
