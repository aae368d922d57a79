"""Related records by id in one listing per chunk, for a dialect with a native filter language."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType, SimpleNamespace
from typing import Any, cast

import pytest

from runtime.mapping import Entity, Field, FilterParam
from runtime.protocol import ProtocolError
from runtime.service import CHUNK, RuntimeState, records_by_id
from runtime.upstream import DjangoFilterDialect, dialect_for

TAGS = Entity(
    name="tags", module="board", path="/tags", detail_path="/tags/{id}", id_source=("id",),
    id_type="string", fields=MappingProxyType({"name": Field("name", "string", ("name",))}),
    label="name",
    filters=MappingProxyType({"id": MappingProxyType({"=": FilterParam("filter", True)})}),
)  # fmt: skip


@dataclass
class Upstream:
    """Answers a listing with `stored` (ignoring the filter if told to), or refuses it."""

    stored: list[str]
    dialect: Any = field(default_factory=lambda: dialect_for("pocketbase"))
    ignores_filter: bool = False
    refuses: bool = False
    asked: list[tuple[Mapping[str, str], int]] = field(default_factory=list)

    def scan(self, entity: Entity, params: Mapping[str, str], *, limit: int) -> Any:
        self.asked.append((dict(params), limit))
        text = params.get("filter", "")
        rows = [i for i in self.stored if self.ignores_filter or f'"{i}"' in text]
        return _rows(rows[:limit], self.refuses)


async def _rows(ids: list[str], refuses: bool) -> AsyncIterator[dict[str, Any]]:
    if refuses:  # as the real scan does: the first page is asked for while iterating
        raise ProtocolError("upstream_rejected", "no")
    for i in ids:
        yield {"id": i, "name": f"tag {i}"}


def _run(upstream: Upstream, ids: list[str], target: Entity = TAGS) -> dict[str, Any]:
    state = cast(RuntimeState, SimpleNamespace(upstream=upstream))
    return asyncio.run(records_by_id(state, target, ids))


IDS = [f"t{n:03d}" for n in range(120)]


@dataclass(frozen=True)
class Case:
    name: str
    upstream: Upstream
    ids: list[str]
    found: list[str]
    requests: int
    target: Entity = TAGS


CASES = [
    Case("one listing per chunk", Upstream(IDS), IDS, IDS, 3),
    Case("ids it does not hold are left for reads by id", Upstream(["t001"]), ["t001", "t002"],
         ["t001"], 1),
    Case("a listing that ignores the filter costs no record", Upstream(["x", "t001", "t002"],
         ignores_filter=True), ["t001", "t002"], ["t001"], 1),
    Case("a refused listing leaves every id to its read", Upstream(IDS, refuses=True),
         ["t001", "t002"], [], 1),
    Case("no native filter: nothing is listed", Upstream(IDS, dialect=DjangoFilterDialect()),
         ["t001", "t002"], [], 0),
    Case("the target does not offer id =", Upstream(IDS), ["t001", "t002"], [], 0,
         replace(TAGS, filters=MappingProxyType({}))),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_records_by_id(case: Case) -> None:
    found = _run(case.upstream, case.ids, case.target)
    assert sorted(found) == case.found
    assert all(found[i] == {"id": i, "name": f"tag {i}"} for i in found)
    assert len(case.upstream.asked) == case.requests


def test_what_a_chunk_asks_for() -> None:
    upstream = Upstream(IDS)
    _run(upstream, IDS[: CHUNK + 1])
    (first, size), (second, last) = upstream.asked
    assert size == CHUNK and first["filter"].startswith('(id = "t000" || id = "t001" || ')
    assert first["filter"].count("||") == CHUNK - 1
    assert (second, last) == ({"filter": 'id = "t050"'}, 1)
