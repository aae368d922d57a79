"""json-server's dialect: values as `String(stored)` compares them, `_like` regexes, `_order`."""

from __future__ import annotations

import re
from typing import Any

import pytest

from runtime.mapping import Entity, Field, FilterParam, SortSpec
from runtime.query import parse_filter, parse_sort, plan
from runtime.upstream.dialects import (
    DIALECTS,
    JsonServerDialect,
    PlainDialect,
    dialect_for,
    encode_filter,
    regex_escape,
    sort_params,
)

from ..support import CARDS, NOTES

JSON_SERVER = JsonServerDialect()
TITLE = CARDS.fields["title"]
CREATED = CARDS.fields["created"]


@pytest.mark.parametrize(
    ("field", "value", "text"),
    [
        (TITLE, True, "true"),
        (TITLE, False, "false"),
        (TITLE, 7, "7"),
        (TITLE, 1.0, "1"),
        (TITLE, 1.5, "1.5"),
        (TITLE, 1e21, "1e+21"),  # String(1e21) in JavaScript
        (TITLE, 2**53 - 1, "9007199254740991"),
        (TITLE, 2**53, None),  # JavaScript would hold another number
        (TITLE, float("inf"), None),
        (TITLE, "a,b", "a,b"),
        (TITLE, None, None),
        (TITLE, ["a", "b"], None),  # a repeated parameter is an OR; String([a, b]) is "a,b"
        (TITLE, {"k": 1}, None),
        (CREATED, "2026-07-30T00:00:00Z", None),  # compared as stored text: never sent
        (None, "card_seed", "card_seed"),
    ],
)
def test_encode_value(field: Field | None, value: Any, text: str | None) -> None:
    assert JSON_SERVER.encode_value(field, value) == text


@pytest.mark.parametrize(
    ("op", "value", "text"),
    [
        ("=", "a.b", "a.b"),
        ("~", "a.b", r"a\.b"),
        ("~", "(c++)?", r"\(c\+\+\)\?"),
        ("~", "x/y*z", r"x\/y\*z"),
        ("~", "[a]{1}|^$\\", r"\[a\]\{1\}\|\^\$\\"),
        ("~", "plain words - ok", "plain words - ok"),
        ("!~", "a.b", r"a\.b"),
        (">=", 3, "3"),
    ],
)
def test_encode_filter_escapes_like_values(op: str, value: Any, text: str) -> None:
    assert encode_filter(JSON_SERVER, op, TITLE, value) == text


@pytest.mark.parametrize(
    "text", ["a.b", "(c++)?", "x/y*z", "[a]{1}|^$\\", 'Rename "Inbox" column', "50% off"]
)
def test_an_escaped_value_matches_itself_and_only_as_text(text: str) -> None:
    pattern = re.compile(regex_escape(text), re.IGNORECASE)
    assert pattern.search(f"before {text.upper()} after")
    assert not pattern.search(text[:-1] + "\n")


def test_plain_dialects_encode_every_operator_alike() -> None:
    plain = PlainDialect()
    assert encode_filter(plain, "~", TITLE, "a.b") == "a.b" == plain.encode_value(TITLE, "a.b")


SPEC = SortSpec(param="_sort", fields=("title", "created", "id"))
SORTS = [
    ([("title", False)], {"_sort": "title", "_order": "asc"}),
    ([("created", True), ("title", False)], {"_sort": "created_at,title", "_order": "desc,asc"}),
    ([("id", True)], {"_sort": "id", "_order": "desc"}),
]


@pytest.mark.parametrize(("keys", "params"), SORTS, ids=[str(k) for k, _ in SORTS])
def test_sort_params_name_the_order_separately(
    keys: list[tuple[str, bool]], params: dict[str, str]
) -> None:
    assert JSON_SERVER.sort_params(SPEC, keys, entity=CARDS) == params
    assert sort_params(JSON_SERVER, SPEC, keys, entity=CARDS) == params


def test_the_one_pair_form_refuses_a_descending_key() -> None:
    assert JSON_SERVER.sort_param(SPEC, [("title", False)], entity=CARDS) == ("_sort", "title")
    with pytest.raises(ValueError, match="_order"):
        JSON_SERVER.sort_param(SPEC, [("title", True)], entity=CARDS)
    with pytest.raises(ValueError, match="due"):
        JSON_SERVER.sort_params(SPEC, [("due", False)], entity=CARDS)


def test_dialects_without_sort_params_keep_one_parameter() -> None:
    spec = SortSpec(param="sort", fields=("title",), desc="-")
    assert sort_params(PlainDialect(), spec, [("title", True)], entity=NOTES) == {
        "sort": "-attributes.title"
    }


def test_registry_and_null_test() -> None:
    assert dialect_for("json-server") is DIALECTS["json-server"]
    assert isinstance(DIALECTS["json-server"], JsonServerDialect)
    assert JSON_SERVER.null_param("due", True) is None


def _cards(filters: dict[str, dict[str, str]]) -> Entity:
    spec = SortSpec(param="_sort", fields=("title", "due"), desc="")
    spelled = {f: {op: FilterParam(p) for op, p in ops.items()} for f, ops in filters.items()}
    return Entity(
        name="cards", module="board", path="/cards", detail_path="/cards/{id}",
        id_source=("id",), id_type="string", fields=CARDS.fields, label="title",
        filters=spelled, sort=spec,
    )  # fmt: skip


PLANS = [
    ('title ~ "Ship v1.2"', "", {"title_like": r"Ship v1\.2"}, 1),
    ('title = "Ship v1.2"', "", {"title": "Ship v1.2"}, 1),
    ("done = true && estimate >= 2", "", {"done": "true", "estimate_gte": "2"}, 2),
    ('created >= "2026-01-01 00:00:00"', "", {}, 0),  # datetimes stay local
    ('title ~ "50%"', "", {}, 0),  # a LIKE wildcard: local only
    ("", "-due,title", {"_sort": "due,title", "_order": "desc,asc"}, 0),
]
FILTERS = {"title": {"=": "title", "~": "title_like"}, "done": {"=": "done"},
           "estimate": {">=": "estimate_gte"}, "created": {">=": "created_gte"}}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "sort", "params", "pushed"), PLANS, ids=[p[0] or p[1] for p in PLANS]
)
def test_the_planner_spells_through_the_dialect(
    text: str, sort: str, params: dict[str, str], pushed: int
) -> None:
    expr = parse_filter(text) if text else None
    the_plan = plan(_cards(FILTERS), expr, parse_sort(sort), JSON_SERVER, can_page=True)
    assert dict(the_plan.params) == params
    assert the_plan.pushed == pushed
