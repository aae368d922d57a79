"""The planner hands a dialect with a native filter language its conditions whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.mapping import Entity, Field, SortSpec
from runtime.query import Expr, NativeFilter, native_filter, parse_filter, plan

from ._dataset import CARDS


class Renderer:
    """Records what it is handed; tells the upstream the first condition only."""

    def __init__(self) -> None:
        self.handed: list[list[str]] = []

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        raise AssertionError("a native filter language is not told values one by one")

    def sort_param(
        self, spec: SortSpec, keys: list[tuple[str, bool]], *, entity: Entity | None = None
    ) -> tuple[str, str]:
        raise AssertionError("no sort was asked")

    def render_conditions(self, entity: Entity, conditions: Sequence[Expr]) -> NativeFilter:
        self.handed.append([str(c) for c in conditions])
        if not conditions:
            return NativeFilter({})
        return NativeFilter({"q": str(conditions[0])}, 1, len(conditions) - 1, proven=True)


def test_the_top_level_conjuncts_are_handed_over_flattened() -> None:
    renderer = Renderer()
    expr = parse_filter('(title = "a" && done = true) && (points > 1 || points < 0)')
    told = plan(CARDS, expr, (), renderer, can_page=True)
    assert renderer.handed == [['title = "a"', "done = true", "points > 1 || points < 0"]]
    assert (dict(told.params), told.pushed, told.residual, told.delegate) == (
        {"q": 'title = "a"'}, 1, 2, False,
    )  # fmt: skip


def test_the_whole_query_told_lets_the_upstream_page() -> None:
    told = plan(CARDS, parse_filter('title = "a"'), (), Renderer(), can_page=True)
    assert told.delegate


def test_no_filter_hands_over_no_conditions() -> None:
    renderer = Renderer()
    assert native_filter(CARDS, None, renderer) == NativeFilter({})
    assert renderer.handed == [[]]


def test_an_encoder_without_a_native_language_has_no_native_filter() -> None:
    assert native_filter(CARDS, parse_filter('title = "a"'), object()) is None
