"""Filter dialects: how one upstream spells values and sort keys in its query string.

The query planner decides *what* to push down (from the mapping's proven filter
params); a dialect only decides *how it is written*. Dialects are looked up by
``upstream.dialect`` in `DIALECTS`, so ``ransack``, ``pocketbase`` and
``json-server`` are one class and one registry line each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

from runtime.mapping import Entity, Field, SortSpec
from runtime.protocol import ProtocolError, compact_json

from ._dialect_pocketbase import PocketBaseDialect


class Dialect(Protocol):
    name: str

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        """The query-string text of one filter value; None when it cannot be sent as one."""
        ...

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        """The parameter testing a field (spelled `param` for ``=``) for null, if any."""
        ...

    def sort_param(
        self, spec: SortSpec, keys: Sequence[tuple[str, bool]], *, entity: Entity | None = None
    ) -> tuple[str, str]:
        """``(param, value)`` sorting by `keys` (protocol field name, descending?)."""
        ...


# Optional members a dialect may add; callers reach them through `sort_params` and
# `encode_filter` below, which fall back to the members every dialect has:
#   sort_params(spec, keys, *, entity) -> dict[str, str]: sorting that needs several
#       parameters (json-server's `_sort=a,b&_order=asc,desc`);
#   encode_filter(op, field, value) -> str | None: a value whose spelling depends on
#       the operator (json-server's `_like` takes a regular expression).


def sort_params(
    dialect: Dialect,
    spec: SortSpec,
    keys: Sequence[tuple[str, bool]],
    *,
    entity: Entity | None = None,
) -> dict[str, str]:
    """Every query parameter sorting by `keys`, however many the dialect needs."""
    many = getattr(dialect, "sort_params", None)
    if many is not None:
        return dict(many(spec, keys, entity=entity))
    name, value = dialect.sort_param(spec, keys, entity=entity)
    return {name: value}


def encode_filter(dialect: Dialect, op: str, field: Field | None, value: Any) -> str | None:
    """The query-string text of `value` compared by the protocol operator `op`."""
    by_op = getattr(dialect, "encode_filter", None)
    if by_op is not None:
        encoded: str | None = by_op(op, field, value)
        return encoded
    return dialect.encode_value(field, value)


def _scalar(value: Any) -> str | None:
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


class PlainDialect:
    """No known filter language: plain ``param=value`` pairs, ``sort=a,-b``."""

    name = "none"
    path_separator = "."

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        if isinstance(value, list | tuple):
            parts = [_scalar(v) for v in value]
            if any(p is None for p in parts):
                return None  # a null inside a list has no spelling in a comma list
            return ",".join(p for p in parts if p is not None)
        return _scalar(value)

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        return None

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


class DjangoFilterDialect(PlainDialect):
    """django-filter with DRF's ``OrderingFilter``: ``?done=true&ordering=-due,title``."""

    name = "django-filter"
    # Django spells a path through related objects `list__board`.
    path_separator = "__"

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        base = param.removesuffix("__exact")
        return f"{base}__isnull", "true" if is_null else "false"


DIALECTS: dict[str, Dialect] = {
    "none": PlainDialect(),
    "django-filter": DjangoFilterDialect(),
    "pocketbase": PocketBaseDialect(),
}


def dialect_for(name: str) -> Dialect:
    """The registered dialect; a mapping naming one not built yet is refused clearly."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ProtocolError(
            "not_implemented", f"The filter dialect {name!r} is not available in this runtime."
        ) from None


# Dialects in modules of their own build on PlainDialect, so they register after it.
from ._dialect_jsonserver import JsonServerDialect  # noqa: E402

DIALECTS["json-server"] = JsonServerDialect()
