"""Directus's dialect: the operator in the parameter's name, null tests, datetimes kept local."""

from __future__ import annotations

import pytest

from runtime.mapping import Entity, FilterParam, SortSpec
from runtime.query import parse_filter, parse_sort, plan
from runtime.upstream.dialects import DirectusDialect, dialect_for

from ..support import CARDS

DIRECTUS = dialect_for("directus")
FILTERS = {
    "title": {"=": "filter[title][_eq]"},
    "done": {"=": "filter[done][_eq]"},
    "estimate": {">=": "filter[estimate][_gte]"},
    "due": {"=": "filter[due][_eq]", "<": "filter[due][_lt]"},
    "created": {">=": "filter[created_at][_gte]"},
}


def _cards() -> Entity:
    spelled = {f: {op: FilterParam(p) for op, p in ops.items()} for f, ops in FILTERS.items()}
    return Entity(
        name="cards", module="board", path="/items/cards", detail_path="/items/cards/{id}",
        id_source=("id",), id_type="integer", fields=CARDS.fields, label="title",
        filters=spelled, sort=SortSpec(param="sort", fields=("title", "due")),
    )  # fmt: skip


PLANS = [
    ('title = "Ship v1.2"', "", {"filter[title][_eq]": "Ship v1.2"}, 1),
    ("done = true && estimate >= 2", "",
     {"filter[done][_eq]": "true", "filter[estimate][_gte]": "2"}, 2),
    ("due = null", "", {}, 0),  # the planner pushes no null test: local
    ('title != "x"', "", {}, 0),  # no != declared: local
    ('created >= "2026-01-01 00:00:00"', "", {}, 0),  # datetimes stay local
    ("", "-due,title", {"sort": "-due,title"}, 0),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "sort", "params", "pushed"), PLANS, ids=[p[0] or p[1] for p in PLANS]
)
def test_the_planner_spells_through_the_dialect(
    text: str, sort: str, params: dict[str, str], pushed: int
) -> None:
    expr = parse_filter(text) if text else None
    the_plan = plan(_cards(), expr, parse_sort(sort), DIRECTUS, can_page=True)
    assert dict(the_plan.params) == params
    assert the_plan.pushed == pushed


@pytest.mark.parametrize(
    ("param", "is_null", "expected"),
    [
        ("filter[due][_eq]", True, ("filter[due][_null]", "true")),
        ("filter[due][_eq]", False, ("filter[due][_nnull]", "true")),
        ("filter[due][_lt]", True, None),  # only the = parameter names the field's test
        ("due", True, None),
    ],
)
def test_null_tests(param: str, is_null: bool, expected: tuple[str, str] | None) -> None:
    assert isinstance(DIRECTUS, DirectusDialect)
    assert DIRECTUS.null_param(param, is_null) == expected
