"""PocketBase's dialect: one native ``filter`` expression and a ``sort`` list.

PocketBase reads the protocol's own grammar, so the planner writes the whole
pushable part of a query into ``filter`` (see `runtime.query._native`, which
also says which forms are pushed and why), with field names translated
through each field's ``source``. Sorting is ``sort=-created,title`` with the
upstream's names. A single value is spelled as a filter literal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.mapping import Entity, Field, SortSpec
from runtime.query import Literal


class PocketBaseDialect:
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

    def upstream_name(self, name: str, entity: Entity | None) -> str:
        if entity is None:
            return name
        if name == "id":
            return ".".join(entity.id_source)
        field = entity.fields.get(name)
        return ".".join(field.source) if field else name

    def sort_param(
        self, spec: SortSpec, keys: Sequence[tuple[str, bool]], *, entity: Entity | None = None
    ) -> tuple[str, str]:
        terms = []
        for name, descending in keys:
            if name not in spec.fields:
                raise ValueError(f"the upstream cannot sort by {name!r}")
            upstream = self.upstream_name(name, entity)
            terms.append(f"{spec.desc}{upstream}" if descending else upstream)
        return spec.param, spec.separator.join(terms)
