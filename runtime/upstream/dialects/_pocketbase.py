"""PocketBase's dialect: one native ``filter`` expression and a ``sort`` list.

PocketBase reads the protocol's own grammar, so the planner hands it the whole
pushable part of a query as conditions, written into ``filter`` with field
names translated through each field's ``source`` (`_pocketbase_filter` says
which forms are pushed and why). Sorting is ``sort=-created,title`` with the
upstream's names. A single value is spelled as a filter literal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.mapping import Entity, Field
from runtime.query import Expr, Literal, NativeFilter

from ._base import SourceNamed
from ._pocketbase_filter import render_conditions


class PocketBaseDialect(SourceNamed):
    name = "pocketbase"
    # The parameter that takes a whole filter expression in the protocol's grammar.
    filter_param = "filter"

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        """`value` as a filter literal: ``"text"`` (JSON escapes), ``5``, ``true``, ``null``."""
        if value is None or isinstance(value, bool | str):
            return str(Literal(value))
        if isinstance(value, int | float) and value == value and abs(value) != float("inf"):
            text = str(Literal(value))
            return None if "e" in text else text
        return None

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        return None  # blanks are written inside the filter expression

    def render_conditions(self, entity: Entity, conditions: Sequence[Expr]) -> NativeFilter:
        return render_conditions(entity, conditions, self.filter_param)
