"""The typed, frozen syntax tree of PocketBase's read grammar (filter and sort).

Nodes print back as filter text, so an error raised after parsing can still
quote the expression it is about.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeAlias

OPERATORS: tuple[str, ...] = ("=", "!=", ">", ">=", "<", "<=", "~", "!~")
ANY_OPERATORS: tuple[str, ...] = tuple("?" + op for op in OPERATORS)
MODIFIERS: tuple[str, ...] = ("each", "length", "lower")
DATETIME_MACROS: tuple[str, ...] = (
    "now", "yesterday", "tomorrow", "todayStart", "todayEnd",
    "monthStart", "monthEnd", "yearStart", "yearEnd",
)  # fmt: skip
NUMBER_MACROS: tuple[str, ...] = ("second", "minute", "hour", "day", "month", "year", "weekday")
MACROS: tuple[str, ...] = DATETIME_MACROS + NUMBER_MACROS

LiteralValue: TypeAlias = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Path:
    """A field path: `title`, `author.name`, `tags:length` (modifier on the last part)."""

    parts: tuple[str, ...]
    modifier: str | None = None

    def __str__(self) -> str:
        text = ".".join(self.parts)
        return f"{text}:{self.modifier}" if self.modifier else text


@dataclass(frozen=True, slots=True)
class Literal:
    """A quoted string, a number, `true`, `false` or `null`."""

    value: LiteralValue

    def __str__(self) -> str:
        if isinstance(self.value, str):
            return json.dumps(self.value, ensure_ascii=False)
        if self.value is None:
            return "null"
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        return repr(self.value)


@dataclass(frozen=True, slots=True)
class Macro:
    """A datetime or number macro such as `@now`; `name` is spelled without the `@`."""

    name: str

    def __str__(self) -> str:
        return "@" + self.name


Operand: TypeAlias = Path | Literal | Macro


@dataclass(frozen=True, slots=True)
class Compare:
    left: Operand
    op: str
    right: Operand

    @property
    def any(self) -> bool:
        """The `?` forms: at least one value of a multi-valued side must match."""
        return self.op.startswith("?")

    @property
    def base_op(self) -> str:
        return self.op.removeprefix("?")

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True, slots=True)
class And:
    terms: tuple[Expr, ...]

    def __str__(self) -> str:
        return " && ".join(_grouped(t) for t in self.terms)


@dataclass(frozen=True, slots=True)
class Or:
    terms: tuple[Expr, ...]

    def __str__(self) -> str:
        return " || ".join(str(t) for t in self.terms)


Expr: TypeAlias = And | Or | Compare


def _grouped(expr: Expr) -> str:
    return f"({expr})" if isinstance(expr, Or) else str(expr)


def comparisons(expr: Expr) -> tuple[Compare, ...]:
    """Every comparison in the tree, left to right."""
    if isinstance(expr, Compare):
        return (expr,)
    return tuple(c for term in expr.terms for c in comparisons(term))


@dataclass(frozen=True, slots=True)
class SortKey:
    path: Path
    descending: bool = False

    def __str__(self) -> str:
        return ("-" if self.descending else "") + str(self.path)


@dataclass(frozen=True, slots=True)
class Random:
    """`@random`: shuffle; a direction prefix is accepted and ignored."""

    def __str__(self) -> str:
        return "@random"


SortItem: TypeAlias = SortKey | Random
