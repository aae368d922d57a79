"""Typed ordering of protocol records, as SQLite orders PocketBase's columns.

Nulls sort first ascending and last descending; text sorts by code point
(SQLite's BINARY collation on UTF-8 gives the same order); a multi-valued path
sorts by its first value. Sorting is stable, key by key from the last.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from runtime.protocol import ProtocolError

from . import _chain
from ._ast import Random, SortItem
from ._evaluate import Record
from ._resolve import FieldResolver, ResolvedPath
from ._values import CONVERT

Sorter = Callable[[Iterable[Record]], list[Record]]
_Key = Callable[[Record], tuple[Any, ...]]


def compile_sort(
    keys: Sequence[SortItem],
    resolver: FieldResolver,
    *,
    rng: random.Random | None = None,
    text: str | None = None,
) -> Sorter:
    """A function returning the records in the order `keys` asks for.

    `@random` draws from `rng` (a fresh `random.Random` per query when omitted),
    so a seeded generator makes the shuffle reproducible.
    """
    plan: list[tuple[_Key | None, bool]] = []
    for item in keys:
        if isinstance(item, Random):
            plan.append((None, False))
            continue
        try:
            resolved = resolver.resolve(item.path)
        except ProtocolError as exc:
            got = text if text is not None else ",".join(str(k) for k in keys)
            raise ProtocolError(exc.code, exc.message, got=got) from None
        plan.append((_key(resolved), item.descending))

    def sort(records: Iterable[Record]) -> list[Record]:
        out = list(records)
        for key, descending in reversed(plan):
            if key is None:
                draw = rng or random.Random()
                shuffled = [(draw.random(), i) for i in range(len(out))]
                shuffled.sort()
                out = [out[i] for _, i in shuffled]
            else:
                out.sort(key=key, reverse=descending)
        return out

    return sort


def _key(path: ResolvedPath) -> _Key:
    conv = CONVERT[path.kind]
    read: Callable[[Any], Any]
    if path.multi:
        values = _chain.fanned(path.stages)
        read = lambda record: values(record)[0]  # noqa: E731
    else:
        read = _chain.single(path.stages, start_may_be_none=False)

    def key(record: Record) -> tuple[Any, ...]:
        value = conv(read(record))
        return (0,) if value is None else (1, value)

    return key
