"""The planner's side of a native filter language: conditions handed to the dialect whole.

An upstream whose filter language is the protocol's own grammar (PocketBase) is
told whole expressions, not one parameter per comparison. The planner hands
such a dialect the top-level conjuncts of a filter; the dialect writes those
it can in the upstream's own spelling and says how much of the query that
covers. How it spells them is the upstream's business (`runtime.upstream`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from runtime.mapping import Entity

from ._ast import And, Expr


@dataclass(frozen=True, slots=True)
class NativeFilter:
    """What the upstream is told, and how much of the query that covers."""

    params: Mapping[str, str]
    pushed: int = 0
    residual: int = 0
    proven: bool = True


class ConditionRenderer(Protocol):
    """A dialect with a native filter language (it also names its `filter_param`)."""

    def render_conditions(self, entity: Entity, conditions: Sequence[Expr]) -> NativeFilter:
        """The conditions (conjuncts, all to hold) the upstream can be told, joined."""
        ...


def conjuncts(expr: Expr | None) -> list[Expr]:
    """The terms of a top-level ``&&``, flattened; none for no filter."""
    if expr is None:
        return []
    if isinstance(expr, And):
        return [part for term in expr.terms for part in conjuncts(term)]
    return [expr]


def native_filter(entity: Entity, expr: Expr | None, encoder: object) -> NativeFilter | None:
    """The native filter for `expr`; None when the encoder has no native filter language."""
    render = getattr(encoder, "render_conditions", None)
    if render is None:
        return None
    found: NativeFilter = render(entity, conjuncts(expr))
    return found
