"""Related records for filters through refs (`list.title = "x"`) and for `expand`.

Fetched level by level, each distinct record once per request, so the local
evaluator can stay synchronous.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from runtime.mapping import Entity
from runtime.protocol import ProtocolError
from runtime.query import And, Compare, Expr, Or, Path, SortItem, SortKey

from ._batch import records_by_id
from ._fanout import PER_CALL
from ._reach import Reach

MAX_RELATED = 5_000


def ref_paths(expr: Expr | None, sort: Sequence[SortItem] = ()) -> list[tuple[str, ...]]:
    """Dotted paths (longer than one part) a filter or sort reads."""
    found: list[tuple[str, ...]] = []

    def walk(node: Expr | None) -> None:
        if isinstance(node, And | Or):
            for term in node.terms:
                walk(term)
        elif isinstance(node, Compare):
            for side in (node.left, node.right):
                if isinstance(side, Path) and len(side.parts) > 1:
                    found.append(side.parts)

    walk(expr)
    found.extend(k.path.parts for k in sort if isinstance(k, SortKey) and len(k.path.parts) > 1)
    return found


def _ids(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if v is not None and v != ""]


class Related:
    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self.cache: dict[tuple[str, str], dict[str, Any] | None] = {}
        self._gate = asyncio.Semaphore(PER_CALL)

    def lookup(self, entity: str, record_id: str) -> dict[str, Any] | None:
        return self.cache.get((entity, record_id))

    async def _fetch(self, target: Entity, ids: Iterable[str]) -> None:
        wanted = sorted({i for i in ids if (target.name, i) not in self.cache})
        if len(self.cache) + len(wanted) > MAX_RELATED:
            raise ProtocolError(
                "invalid_filter",
                f"Following these references would read more than {MAX_RELATED} related "
                "records; narrow the query first.",
            )

        async def one(record_id: str) -> None:
            async with self._gate, self.reach.fanout:
                self.cache[(target.name, record_id)] = await self.reach.upstream.get_record(
                    target, record_id
                )

        if len(wanted) > 1:  # one listing where the upstream takes `id = a || id = b`
            for record_id, record in (await records_by_id(self.reach, target, wanted)).items():
                self.cache[(target.name, record_id)] = record
            wanted = [i for i in wanted if (target.name, i) not in self.cache]
        await asyncio.gather(*(one(i) for i in wanted))

    async def prefetch(
        self, entity: Entity, records: Sequence[dict[str, Any]], paths: Iterable[tuple[str, ...]]
    ) -> None:
        """Everything the paths reach from `records`, one level at a time."""
        for path in {p[:-1] for p in paths}:
            current, rows = entity, list(records)
            for name in path:
                field = current.fields.get(name)
                if (
                    field is None
                    or not field.is_ref
                    or field.entity not in self.reach.mapping.entities
                ):
                    break
                target = self.reach.mapping.entities[field.entity or ""]
                ids = [i for r in rows for i in _ids(r.get(name))]
                await self._fetch(target, ids)
                rows = [rec for i in ids if (rec := self.cache.get((target.name, i))) is not None]
                current = target

    def check_expand(self, entity: Entity, paths: Sequence[tuple[str, ...]]) -> None:
        """Every segment of every path is a ref or list<ref> field of the entity it reaches.

        Checked before anything is read, so the refusal does not depend on the data: a
        page with no records, or records whose refs are blank, refuse the same paths."""
        for path in paths:
            current = entity
            for head in path:
                current = self._target(current, head)

    def _target(self, entity: Entity, head: str) -> Entity:
        field = entity.fields.get(head)
        if field is None or not field.is_ref or field.entity not in self.reach.mapping.entities:
            raise ProtocolError(
                "invalid_filter",
                f"Cannot expand {head!r}: it is not a ref or list<ref> field of {entity.name}.",
            )
        return self.reach.mapping.entities[field.entity or ""]

    async def expand(
        self, entity: Entity, records: Sequence[dict[str, Any]], paths: Sequence[tuple[str, ...]]
    ) -> None:
        """PocketBase's `expand`: related records under each record's `expand` key."""
        if not paths:
            return
        self.check_expand(entity, paths)
        await self.prefetch(entity, records, [(*p, "id") for p in paths])
        for record in records:
            expanded = self._expanded(entity, record, paths)
            if expanded:
                record["expand"] = expanded

    def _expanded(
        self, entity: Entity, record: dict[str, Any], paths: Sequence[tuple[str, ...]]
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for head in dict.fromkeys(p[0] for p in paths):
            target = self._target(entity, head)
            field = entity.fields[head]
            rest = [p[1:] for p in paths if p[0] == head and len(p) > 1]
            found = []
            for ref in _ids(record.get(head)):
                related = self.cache.get((target.name, ref))
                if related is None:
                    continue
                copy = dict(related)
                nested = self._expanded(target, copy, rest) if rest else {}
                if nested:
                    copy["expand"] = nested
                found.append(copy)
            if found:
                out[head] = found if field.type == "list<ref>" else found[0]
        return out
