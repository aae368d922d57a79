"""PocketBase's native filter: the pushable conditions of a query as one expression.

PocketBase is told whole expressions, not one parameter per comparison: every
condition the planner hands over (a top-level conjunct), and every ``||``
group whose branches all qualify, is rendered with the upstream's field names
(each field's ``source``) and joined with ``&&`` into the one parameter the
dialect names (``filter_param``).

A comparison qualifies only when the mapping lists its operator for that field
under that parameter, and only in a form whose semantics are the local
evaluator's (reference ``pocketbase-records-api.md`` §4, pinned by
``tests/runtime/query/test_pocketbase_differential.py``
and ``tests/runtime/upstream/dialects/test_pocketbase_filter_live.py``):

* text, enum, ref and id fields: any operator, the literal a string (``null``
  only with ``=`` / ``!=``); ``:lower`` on them too;
* numbers: ``= != < <= > >=`` with a number the upstream binds exactly (no
  text that looks like a number: SQLite's affinity decides those);
* booleans: ``=`` and ``!=`` with ``true``, ``false`` or ``null``;
* datetimes: the literal is resolved to its instant and written in the
  upstream's stored form (``2026-12-01 00:00:00.000Z``), which compares as text
  exactly as instants compare; ordering gets a ``field != ""`` guard, since an
  unset date is ``""`` there, which sorts before every date, and null here,
  which is never ordered;
* list fields (multiple select or relation): ``?=`` / ``?!=`` as ``field:each``,
  and only when the path occurs once in the whole filter (every ``:each`` of one
  path shares one join upstream; a bare list field would be its raw JSON text).

Anything else stays local: paths through refs, macros, a literal on the left,
two fields compared, day keys, JSON, text against numbers. Whatever is pushed,
the local check still runs over what comes back.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from runtime.mapping import Entity, Field, FieldType
from runtime.query import (
    MAX_COMPARISONS,
    MAX_FILTER_LENGTH,
    And,
    Compare,
    Expr,
    Literal,
    NativeFilter,
    Or,
    Path,
    comparisons,
    parse_instant,
    render_literal,
)

_ID = Field(name="id", type=FieldType.STRING, source=("id",))
_TEXT = ("string", "enum", "ref")
_LISTS = ("list<enum>", "list<ref>")
_EQUALITY = ("=", "!=")
_ORDER = ("<", "<=", ">", ">=")
# One column: a dotted source would be a JSON path there, which compares without blanks.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EXACT_FLOAT = 2**53


@dataclass(frozen=True, slots=True)
class _Text:
    text: str
    proven: bool
    count: int  # comparisons, as the upstream counts them against its limit


@dataclass(frozen=True, slots=True)
class _Scope:
    entity: Entity
    param: str
    uses: Counter[str]


def render_conditions(entity: Entity, conditions: Sequence[Expr], param: str) -> NativeFilter:
    """The conditions PocketBase can be told in `param`, joined; the rest stay local."""
    uses: Counter[str] = Counter(
        side.parts[0]
        for condition in conditions
        for c in comparisons(condition)
        for side in (c.left, c.right)
        if isinstance(side, Path)
    )
    scope = _Scope(entity, param, uses)
    texts: list[str] = []
    count = residual = 0
    proven = True
    for part in conditions:
        found = _render(scope, part, grouped=False)
        # The upstream refuses a filter over its limits; what does not fit stays local.
        if found is None or (
            len(" && ".join([*texts, found.text])) > MAX_FILTER_LENGTH
            or count + found.count > MAX_COMPARISONS
        ):
            residual += 1
            continue
        texts.append(found.text)
        count += found.count
        proven = proven and found.proven
    params = {param: " && ".join(texts)} if texts else {}
    return NativeFilter(params, len(texts), residual, proven)


def _render(scope: _Scope, expr: Expr, *, grouped: bool) -> _Text | None:
    if isinstance(expr, Compare):
        return _compare(scope, expr)
    parts = [_render(scope, term, grouped=True) for term in expr.terms]
    if any(p is None for p in parts):
        return None
    done = [p for p in parts if p is not None]
    joiner = " && " if isinstance(expr, And) else " || "
    text = joiner.join(p.text for p in done)
    if grouped or isinstance(expr, Or):
        text = f"({text})"
    return _Text(text, all(p.proven for p in done), sum(p.count for p in done))


def _compare(scope: _Scope, cmp: Compare) -> _Text | None:
    path, right = cmp.left, cmp.right
    if not (isinstance(path, Path) and isinstance(right, Literal)) or len(path.parts) != 1:
        return None
    name = path.parts[0]
    field = _ID if name == "id" else scope.entity.fields.get(name)
    if field is None or field.write_only:
        return None
    source = ".".join(field.source) if name != "id" else ".".join(scope.entity.id_source)
    if not _NAME.fullmatch(source):
        return None
    if field.type in _LISTS:
        return _list(scope, field, source, cmp, path, right.value)
    spelled = _spelled(scope, name, cmp.op)
    if spelled is None:
        spelled = _spelled(scope, name, cmp.base_op)
    if spelled is None:
        return None
    op = cmp.base_op
    if field.type in _TEXT and not field.day_key:
        return _single(source, path, op, _text_literal(op, right.value), spelled)
    if path.modifier is not None:
        return None
    if field.type == "number":
        literal = _number_literal(op, right.value)
        return _single(source, path, op, literal, spelled, allowed=(*_EQUALITY, *_ORDER))
    if field.type == "boolean":
        literal = _boolean_literal(right.value)
        return _single(source, path, op, literal, spelled, allowed=_EQUALITY)
    if field.type == "datetime":
        literal = _datetime_literal(right.value)
        found = _single(source, path, op, literal, spelled, allowed=(*_EQUALITY, *_ORDER))
        if found is not None and op in _ORDER:
            return _Text(f'({source} != "" && {found.text})', found.proven, 2)
        return found
    return None


def _spelled(scope: _Scope, name: str, op: str) -> bool | None:
    """Whether the pushdown is proven; None when the mapping does not offer it natively."""
    found = scope.entity.filters.get(name, {}).get(op)
    if found is None or found.param != scope.param:
        return None
    return found.proven


def _single(
    source: str,
    path: Path,
    op: str,
    literal: str | None,
    proven: bool,
    *,
    allowed: tuple[str, ...] = (*_EQUALITY, *_ORDER, "~", "!~"),
) -> _Text | None:
    if literal is None or op not in allowed:
        return None
    if path.modifier not in (None, "lower"):
        return None
    if literal == "null" and op not in _EQUALITY:
        return None
    name = f"{source}:lower" if path.modifier == "lower" else source
    return _Text(f"{name} {op} {literal}", proven, 1)


def _list(
    scope: _Scope, field: Field, source: str, cmp: Compare, path: Path, value: Any
) -> _Text | None:
    if cmp.op not in ("?=", "?!=") or path.modifier not in (None, "each"):
        return None
    if scope.uses[path.parts[0]] != 1 or not isinstance(value, str):
        return None
    proven = _spelled(scope, path.parts[0], cmp.op)
    if proven is None:
        return None
    return _Text(f"{source}:each {cmp.op} {Literal(value)}", proven, 1)


def _text_literal(op: str, value: Any) -> str | None:
    if value is None:
        return "null" if op in _EQUALITY else None
    return render_literal(value) if isinstance(value, str) else None


def _number_literal(op: str, value: Any) -> str | None:
    if value is None:
        return "null" if op in _EQUALITY else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or abs(value) > _EXACT_FLOAT:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return render_literal(value)


def _boolean_literal(value: Any) -> str | None:
    return render_literal(value) if value is None or isinstance(value, bool) else None


def _datetime_literal(value: Any) -> str | None:
    """The instant as the upstream stores it; None when that form would round it."""
    if value is None or value == "":
        return '""'
    if not isinstance(value, str):
        return None
    micros = parse_instant(value)
    if micros is None:
        return None
    return render_literal(_EPOCH + timedelta(microseconds=micros))
