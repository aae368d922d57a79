"""`appliesWhen` as a typed tree: the closed availability language of an operation.

The file spells a predicate as one small JSON object (`{field, eq}`, `{all: [...]}`,
...); the compiled form is one frozen node per object, so evaluators match on a
class instead of probing keys, and `dump_predicate` writes the object back.
"""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass
from typing import Any, Literal

from ._frozen import freeze, thaw

CompareOp = Literal["eq", "ne", "in", "notIn", "isBlank"]
COMPARE_OPS: tuple[CompareOp, ...] = ("eq", "ne", "in", "notIn", "isBlank")


@dataclass(frozen=True, slots=True)
class Compare:
    """`{field, <op>: value}`; `in`/`notIn` hold a tuple, `isBlank` a bool."""

    field: str
    op: CompareOp
    value: Any


@dataclass(frozen=True, slots=True)
class AllOf:
    items: tuple[Predicate, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    items: tuple[Predicate, ...]


@dataclass(frozen=True, slots=True)
class Not:
    item: Predicate


Predicate = Compare | AllOf | AnyOf | Not


def compile_predicate(doc: AbcMapping[str, Any]) -> Predicate:
    """A schema-valid predicate object as its node."""
    if "all" in doc:
        return AllOf(tuple(compile_predicate(p) for p in doc["all"]))
    if "any" in doc:
        return AnyOf(tuple(compile_predicate(p) for p in doc["any"]))
    if "not" in doc:
        return Not(compile_predicate(doc["not"]))
    op = next(o for o in COMPARE_OPS if o in doc)
    return Compare(str(doc["field"]), op, freeze(doc[op]))


def dump_predicate(pred: Predicate) -> dict[str, Any]:
    """The predicate object as the file writes it."""
    if isinstance(pred, AllOf):
        return {"all": [dump_predicate(p) for p in pred.items]}
    if isinstance(pred, AnyOf):
        return {"any": [dump_predicate(p) for p in pred.items]}
    if isinstance(pred, Not):
        return {"not": dump_predicate(pred.item)}
    return {"field": pred.field, pred.op: thaw(pred.value)}
