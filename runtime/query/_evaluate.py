"""Filters compiled once per query into nested closures over protocol records.

Compilation resolves every path, coerces every literal to its field's declared
kind and fixes the macros' instant; evaluating a record then only calls
closures. Multi-valued paths follow PocketBase: without `?` every element must
match, with `?` at least one. When two conditions read the same join (say
`tags.name ?= "a" && tags.color ?= "blue"`), PocketBase evaluates them on the
same joined row, so they must hold for one shared element; such filters are
evaluated row by row over the joined elements.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from runtime.protocol import ProtocolError

from . import _chain
from ._ast import And, Compare, Expr, Literal, Operand, Path, comparisons
from ._compare import FLIPPED, literal_kind, pair_test, value_test
from ._macros import macro_values
from ._resolve import FieldResolver, ResolvedPath
from ._values import pb_datetime

Record = Mapping[str, Any]
Predicate = Callable[[Record], bool]
_Pred = Callable[[Any], bool]  # over the record, or over a row of joined elements
_Test = Callable[[Any], bool]


def compile_filter(
    expr: Expr | None,
    resolver: FieldResolver,
    *,
    now: datetime | None = None,
    text: str | None = None,
) -> Predicate:
    """A predicate over protocol records; `now` (UTC) fixes every macro for the query.

    Raises `ProtocolError("invalid_filter")` carrying `got` (the `text` given,
    else the expression printed back) for unknown fields and mistyped values.
    """
    if expr is None:
        return _always
    try:
        return _Compiler(resolver, now or datetime.now(UTC)).build(expr)
    except ProtocolError as exc:
        if "got" in exc.extra:
            raise
        got = text if text is not None else str(expr)
        raise ProtocolError(exc.code, exc.message, got=got) from None


@dataclass(frozen=True, slots=True)
class _Const:
    value: Any


@dataclass(frozen=True, slots=True)
class _Field:
    path: ResolvedPath
    multi: bool  # values below the row's start still fan out
    get: Callable[[Any], Any]  # the value, when not multi
    values: Callable[[Any], list[Any]]  # the values below the row's start
    every: Callable[[Any], list[Any]] | None  # all values from the record, when joined


class _Compiler:
    def __init__(self, resolver: FieldResolver, now: datetime) -> None:
        self.resolver = resolver
        self.macros = macro_values(now)
        self.paths: dict[Path, ResolvedPath] = {}
        self.slots: dict[str, int] = {}

    def build(self, expr: Expr) -> Predicate:
        operands = [o for c in comparisons(expr) for o in (c.left, c.right) if isinstance(o, Path)]
        for path in operands:
            if path not in self.paths:
                self.paths[path] = self.resolver.resolve(path)
        uses = Counter(
            s.key for p in operands for s in self.paths[p].stages if s.many and s.key is not None
        )
        plan = self._plan([self.paths[p] for p in operands], {k for k, n in uses.items() if n > 1})
        pred = self.expr(expr)
        return _by_rows(pred, plan) if plan else pred

    def _plan(
        self, paths: list[ResolvedPath], shared: set[str]
    ) -> list[tuple[int, int, Callable[[Any], list[Any]]]]:
        """One row slot per shared join, parents before children, with how to fan it out."""
        plan: list[tuple[int, int, Callable[[Any], list[Any]]]] = []
        for path in paths:
            parent, begin = 0, 0
            for j, stage in enumerate(path.stages):
                if not (stage.many and stage.key in shared):
                    continue
                key = stage.key or ""
                if key not in self.slots:
                    self.slots[key] = len(self.slots) + 1
                    plan.append(
                        (self.slots[key], parent, _chain.fanned(path.stages[begin : j + 1]))
                    )
                parent, begin = self.slots[key], j + 1
        return plan

    def expr(self, expr: Expr) -> _Pred:
        if isinstance(expr, Compare):
            return self.comparison(expr)
        preds = [self.expr(t) for t in expr.terms]
        return _all_of(preds) if isinstance(expr, And) else _any_of(preds)

    def comparison(self, cmp: Compare) -> _Pred:
        op = cmp.base_op
        left, right = self.operand(cmp.left), self.operand(cmp.right)
        if isinstance(left, _Const) and isinstance(right, _Const):
            return _always if _fold(left.value, op, right.value) else _never
        if isinstance(left, _Const):
            assert isinstance(right, _Field)
            if op in ("~", "!~"):
                # a literal on the left is searched for the field's value
                pair, lit = pair_test(right.path.kind, op), _plain(left.value)
                return self._one_side(right, lambda v: pair(lit, v), cmp.any)
            left, right, op = right, left, FLIPPED[op]
        assert isinstance(left, _Field)
        if isinstance(right, _Const):
            test = value_test(left.path.kind, op, right.value, left.path.text)
            return self._one_side(left, test, cmp.any)
        return self._two_sides(left, right, op, cmp.any)

    def operand(self, operand: Operand) -> _Const | _Field:
        if isinstance(operand, Literal):
            return _Const(operand.value)
        if not isinstance(operand, Path):
            return _Const(self.macros[operand.name])
        path = self.paths[operand]
        begin, slot = 0, 0
        for j, stage in enumerate(path.stages):
            if stage.many and stage.key in self.slots:
                begin, slot = j + 1, self.slots[stage.key or ""]
        rest = path.stages[begin:]
        multi = any(s.many for s in rest)
        get = _chain.single(rest, start_may_be_none=bool(self.slots))
        values = _chain.fanned(rest)
        every = _chain.fanned(path.stages) if begin else None
        if self.slots:
            get, values = _from_slot(get, slot), _from_slot(values, slot)
            every = _from_slot(every, 0) if every else None
        elif not multi:
            values = _listed(get)
        return _Field(path, multi, get, values, every)

    def _one_side(self, field: _Field, test: _Test, any_op: bool) -> _Pred:
        get, values, every = field.get, field.values, field.every
        if not field.multi:
            if every is None or any_op:
                return lambda c: test(get(c))
            return lambda c: test(get(c)) and all(map(test, every(c)))
        if any_op:
            return lambda c: any(map(test, values(c)))
        if every is None:
            return lambda c: all(map(test, values(c)))
        return lambda c: any(map(test, values(c))) and all(map(test, every(c)))

    def _two_sides(self, left: _Field, right: _Field, op: str, any_op: bool) -> _Pred:
        lp, rp = left.path, right.path
        if lp.kind != rp.kind:
            raise ProtocolError(
                "invalid_filter",
                f"cannot compare {lp.text!r} ({lp.declared}) with {rp.text!r} ({rp.declared})",
            )
        pair = pair_test(lp.kind, op)
        lv, rv = left.values, right.values
        if not (left.multi or right.multi or left.every or right.every):
            lg, rg = left.get, right.get
            return lambda c: pair(lg(c), rg(c))

        def some(c: Any) -> bool:
            return any(pair(a, b) for a in lv(c) for b in rv(c))

        if any_op or not (lp.multi or rp.multi):
            return some
        le, re_ = left.every or lv, right.every or rv

        def every(c: Any) -> bool:
            return all(pair(a, b) for a in le(c) for b in re_(c))

        if not (left.every or right.every):
            return every
        return lambda c: some(c) and every(c)


def _by_rows(pred: _Pred, plan: list[tuple[int, int, Callable[[Any], list[Any]]]]) -> Predicate:
    size = len(plan)

    def match(record: Record) -> bool:
        row: list[Any] = [record] + [None] * size

        def walk(i: int) -> bool:
            if i == size:
                return pred(row)
            slot, parent, fan = plan[i]
            for element in fan(row[parent]):
                row[slot] = element
                if walk(i + 1):
                    return True
            return False

        return walk(0)

    return match


def _fold(left: Any, op: str, right: Any) -> bool:
    """Two constants (`1 = 1`, `@now > "2026-01-01"`), compared once at compile time."""
    if op in ("~", "!~"):
        return value_test("text", op, right, "literal")(_plain(left))
    return pair_test(literal_kind(left, right), op)(left, right)


def _plain(value: Any) -> Any:
    return pb_datetime(value) if isinstance(value, datetime) else value


def _from_slot(read: Callable[[Any], Any], slot: int) -> Callable[[Any], Any]:
    return lambda row: read(row[slot])


def _listed(get: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    return lambda c: [get(c)]


def _all_of(preds: list[_Pred]) -> _Pred:
    if len(preds) == 2:
        a, b = preds
        return lambda c: a(c) and b(c)
    if len(preds) == 3:
        a, b, d = preds
        return lambda c: a(c) and b(c) and d(c)

    def every(c: Any) -> bool:
        return all(p(c) for p in preds)

    return every


def _any_of(preds: list[_Pred]) -> _Pred:
    if len(preds) == 2:
        a, b = preds
        return lambda c: a(c) or b(c)

    def some(c: Any) -> bool:
        return any(p(c) for p in preds)

    return some


def _always(record: Any) -> bool:
    return True


def _never(record: Any) -> bool:
    return False
