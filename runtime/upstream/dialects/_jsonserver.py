"""json-server 0.17: ``f=v``, ``f_ne``, ``f_lte``, ``f_gte``, ``f_like`` and ``_sort``/``_order``.

json-server compares a filter value with ``String(stored)`` (``done=true`` matches
``true``, ``position=1.5`` matches ``1.5``), so values are spelled as JavaScript
spells them, and a number JavaScript cannot hold exactly is not sent at all (the
local check alone then decides). ``f_like`` is ``new RegExp(value, "i")``: the text
is regex-escaped, which makes it a case-insensitive *contains*, a superset of the
protocol's ``~`` for the ASCII text the planner pushes down. A datetime is
compared as the text stored, which depends on who wrote it (``…T10:00:00Z`` and
``… 10:00:00.000Z`` are one instant), so datetime values are never sent: the
local check decides alone. Sorting takes two parameters, ``_sort=a,b&_order=asc,desc``.
There is no null test, ``f_ne`` skips records whose field is null or missing, and
sorting puts them last ascending, where the protocol puts them first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from runtime.mapping import Entity, Field, SortSpec

from ._base import scalar_text
from ._plain import PlainDialect

# The characters a JavaScript RegExp reads as syntax outside a class (without the u flag
# every one of them may be escaped by a backslash).
_REGEX_SYNTAX = frozenset("\\^$.*+?()[]{}|/")
_SAFE_INTEGER = 2**53
_LIKE_OPERATORS = ("~", "!~")


def regex_escape(text: str) -> str:
    """``text`` as a JavaScript regular expression matching itself."""
    return "".join("\\" + c if c in _REGEX_SYNTAX else c for c in text)


class JsonServerDialect(PlainDialect):
    name = "json-server"
    order_param = "_order"
    # Field types json-server compares and orders by their stored text, not their value.
    text_compared = frozenset({"datetime"})
    # lodash's orderBy puts null and missing values last ascending (first descending);
    # the protocol puts them first ascending.
    nulls_last = True

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        if field is not None and field.type in self.text_compared:
            return None
        if isinstance(value, list | tuple | dict):
            return None  # a repeated parameter is an OR, and String([a, b]) is "a,b"
        if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) >= _SAFE_INTEGER:
                return None  # JavaScript holds another number than the one asked for
            return str(value)
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return scalar_text(value)

    def encode_filter(self, op: str, field: Field | None, value: Any) -> str | None:
        text = self.encode_value(field, value)
        if text is None or op not in _LIKE_OPERATORS:
            return text
        return regex_escape(text)

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        return None

    def sort_params(
        self, spec: SortSpec, keys: Sequence[tuple[str, bool]], *, entity: Entity | None = None
    ) -> dict[str, str]:
        names: list[str] = []
        orders: list[str] = []
        for name, descending in keys:
            if name not in spec.fields:
                raise ValueError(f"the upstream cannot sort by {name!r}")
            names.append(self.upstream_name(name, entity))
            orders.append("desc" if descending else "asc")
        return {spec.param: ",".join(names), self.order_param: ",".join(orders)}

    def sort_param(
        self, spec: SortSpec, keys: Sequence[tuple[str, bool]], *, entity: Entity | None = None
    ) -> tuple[str, str]:
        """The ``_sort`` half only; an order needs `sort_params`, so a descending key is refused."""
        if any(descending for _, descending in keys):
            raise ValueError("json-server orders descending with a second parameter (_order)")
        params = self.sort_params(spec, keys, entity=entity)
        return spec.param, params[spec.param]
