"""What every filter dialect offers, and the parts dialects share.

The query planner decides *what* to push down (from the mapping's proven filter
params); a dialect only decides *how it is written*: the text of one value, a
null test, and the sort parameters, with field names translated through each
field's ``source``. The members the planner asks for, and the optional ones a
dialect may add, are `runtime.query.Encoder`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

from runtime.mapping import Entity, SortSpec
from runtime.protocol import compact_json
from runtime.query import Encoder


class Dialect(Encoder, Protocol):
    """An `Encoder` the runtime looks up by name, which can also test for null."""

    name: str

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        """The parameter testing a field (spelled `param` for ``=``) for null, if any."""
        ...


def scalar_text(value: Any) -> str | None:
    """One value as a query string spells it: ``true``, ``5``, ``1.5``, the text itself."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)  # exact: a query string is not bound by double precision
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return compact_json(value)  # JavaScript's spelling: 1, not 1.0
    if isinstance(value, str):
        return value
    return compact_json(value)


class SourceNamed:
    """Sorting by the upstream's field names (each field's ``source``): ``sort=-due,title``."""

    # How the upstream spells a path through nested objects.
    path_separator = "."

    def upstream_name(self, name: str, entity: Entity | None) -> str:
        if entity is None:
            return name
        if name == "id":
            return self.path_separator.join(entity.id_source)
        field = entity.fields.get(name)
        return self.path_separator.join(field.source) if field else name

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
