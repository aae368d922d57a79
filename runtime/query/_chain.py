"""Composing resolved stages into readers: one value, or the list of fanned-out values.

A fan-out over nothing yields one None, because PocketBase reads a
multi-valued path through a LEFT JOIN: no elements behave like one NULL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._resolve import Stage

Reader = Callable[[Any], Any]
ListReader = Callable[[Any], list[Any]]


def single(stages: Sequence[Stage], *, start_may_be_none: bool) -> Reader:
    """Reads through single-valued stages; a None anywhere stays None."""
    fetches = [s.fetch for s in stages]
    if not fetches:
        return _identity
    first, *rest = fetches
    if not rest and not start_may_be_none:
        return first
    if not rest:
        return lambda v: None if v is None else first(v)

    def read(value: Any) -> Any:
        if value is None:
            return None
        value = first(value)
        for fetch in rest:
            if value is None:
                return None
            value = fetch(value)
        return value

    return read


def fanned(stages: Sequence[Stage]) -> ListReader:
    """Reads every value reached through the stages, fanning out at each `many` stage."""
    steps = [(s.fetch, s.many) for s in stages]

    def read(value: Any) -> list[Any]:
        values = [value]
        for fetch, many in steps:
            out: list[Any] = []
            for v in values:
                if v is None:
                    out.append(None)
                elif many:
                    out.extend(fetch(v) or (None,))
                else:
                    out.append(fetch(v))
            values = out
        return values

    return read


def _identity(value: Any) -> Any:
    return value
