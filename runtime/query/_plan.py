"""Split a query into what the upstream is told and what is checked here.

Pushdown only narrows what comes back: every predicate is checked again
locally, so an upstream that ignores a parameter costs time, never a wrong
answer. Paging and totals are left to the upstream only when the whole query
was pushed down and every pushed part is marked proven.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from runtime.mapping import Entity, Field, FieldType
from runtime.protocol import ProtocolError

from ._ast import Compare, Expr, Literal, Path, Random, SortItem, SortKey
from ._conditions import conjuncts, native_filter
from ._encoder import Encoder, encode_filter, sort_params
from ._values import coerce_literal

_ID = Field(name="id", type=FieldType.STRING, source=("id",))
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# `~` is a LIKE in PocketBase: `%` and `_` are wildcards there and literal text
# to django-filter's icontains, and non-ASCII case folding differs. Either would
# let the upstream return fewer records than the local check accepts.
_LIKE_SAFE = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -.,:;!?'\"@#/()+=*&"
)


@dataclass(frozen=True, slots=True)
class Plan:
    params: Mapping[str, str] = field(default_factory=dict)
    pushed: int = 0
    residual: int = 0
    proven: bool = True
    sort_pushed: bool = False
    delegate: bool = False


def _push(entity: Entity, cmp: Expr, encoder: Encoder) -> tuple[str, str, bool] | None:
    if not (
        isinstance(cmp, Compare) and isinstance(cmp.left, Path) and isinstance(cmp.right, Literal)
    ):
        return None
    path, value = cmp.left, cmp.right.value
    if len(path.parts) != 1 or path.modifier or value is None or isinstance(value, list):
        return None
    name = path.parts[0]
    spelled = entity.filters.get(name, {}).get(cmp.op)
    if spelled is None:
        return None
    declared = _ID if name == "id" else entity.fields.get(name)
    if cmp.op in ("~", "!~") and not (isinstance(value, str) and set(value) <= _LIKE_SAFE):
        return None
    value = _sendable(declared, value)
    if value is None:
        return None
    encoded = encode_filter(encoder, cmp.op, declared, value)
    if encoded is None:
        return None
    return spelled.param, encoded, spelled.proven


def _sendable(declared: Field | None, value: Any) -> Any:
    """The value the upstream is told, or None when only the local check can be exact.

    Query-string filters drop an empty value (the whole parameter is ignored),
    strip surrounding whitespace and refuse control characters; a day key
    compared with a datetime counts by that instant's UTC date, and a datetime
    is the instant the local check compares, so both are sent in that resolved
    form; a value outside a closed enum is refused by upstreams that validate
    choices, where the local check simply matches nothing.
    """
    if isinstance(value, str) and (not value or value != value.strip() or not value.isprintable()):
        return None
    if declared is None:
        return value
    if declared.type == "enum" and declared.values_closed and value not in declared.values:
        return None
    kind = "day" if declared.type == "string" and declared.day_key else declared.type
    if kind not in ("day", "datetime"):
        return value
    try:
        resolved = coerce_literal(kind, value, declared.name)
    except ProtocolError:
        return None
    if kind == "day" or resolved is None:
        return resolved
    # an instant in explicit UTC: a zoneless text would be read in the upstream's zone
    moment = _EPOCH + timedelta(microseconds=resolved)
    text = moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def plan(
    entity: Entity,
    expr: Expr | None,
    sort: Sequence[SortItem],
    encoder: Encoder,
    *,
    can_page: bool,
) -> Plan:
    params: dict[str, str] = {}
    pushed = residual = 0
    proven = True
    # A dialect with a native filter language takes whole expressions (see `_conditions`).
    native = native_filter(entity, expr, encoder)
    if native is not None:
        params = dict(native.params)
        pushed, residual, proven = native.pushed, native.residual, native.proven
    for part in conjuncts(expr) if native is None else ():
        found = _push(entity, part, encoder)
        if found is None or found[0] in params:
            residual += 1
            continue
        name, value, is_proven = found
        params[name] = value
        pushed += 1
        proven = proven and is_proven
    sort_pushed = False
    sort_ok = not sort
    spec = entity.sort
    if sort and spec is not None:
        keys = [
            k
            for k in sort
            if isinstance(k, SortKey) and len(k.path.parts) == 1 and not k.path.modifier
        ]
        if len(keys) == len(sort) and all(k.path.parts[0] in spec.fields for k in keys):
            params.update(
                sort_params(
                    encoder, spec, [(k.path.parts[0], k.descending) for k in keys], entity=entity
                )
            )
            sort_pushed = True
            sort_ok = spec.proven
    if any(isinstance(k, Random) for k in sort):
        sort_ok = False
    delegate = can_page and residual == 0 and proven and sort_ok
    return Plan(params, pushed, residual, proven, sort_pushed, delegate)
