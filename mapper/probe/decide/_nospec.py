"""Collections no spec describes: stack conventions, then filters and sorting probed live.

Runs after the upstream-wide decisions, on the entities of collections that
have samples but no spec (Rails, json-server, any bare REST API). A recognised
stack first adds what its conventions say (writes, wrapping, required and delete
candidates, each with evidence naming the convention); then every collection's
whole listing is read once, and filters and sort fields are probed against it
with GETs only (`_narrowing`, `_ordering`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeAlias

from .._draft import EntityDraft, UpstreamDraft
from ..sources import is_json_server, is_rails, jsonserver_conventions, rails_conventions
from ._entities import Source

if TYPE_CHECKING:
    from ..live import Exchange

Fetcher: TypeAlias = "Callable[[str], Callable[[Mapping[str, str]], Exchange]]"


def _spec_less(sources: Mapping[str, Source], entities: Mapping[str, EntityDraft]) -> list[str]:
    return [
        name
        for name, src in sources.items()
        if name in entities and src.spec is None and src.records and not src.jsonapi
    ]


def refine(
    sources: Mapping[str, Source], entities: dict[str, EntityDraft], upstream: UpstreamDraft,
    fetcher: Fetcher | None, notes: list[str],
) -> None:  # fmt: skip
    """Conventions of a recognised stack, then filters and sorts probed read-only."""
    names = _spec_less(sources, entities)
    for name in names:
        entity = entities[name]
        found: list[str] = []
        if is_rails(upstream.errors):
            found = rails_conventions(entity, sources[name].records)
        elif is_json_server(upstream.dialect):
            found = jsonserver_conventions(entity)
        notes.extend(f"entities.{name}.{n}" for n in found)
    if fetcher is None or not names:
        return
    # Probing reads live listings through the runtime's query planner and upstream
    # client: they load here, never for a probe without an upstream.
    from runtime.protocol import ProtocolError
    from runtime.upstream import dialect_for

    from ._judge import Walker, runtime_entities
    from ._narrowing import SUFFIXES, probe_filters
    from ._ordering import probe_sorting

    if upstream.dialect not in SUFFIXES:
        return
    try:
        dialect = dialect_for(upstream.dialect)
    except ProtocolError:
        return
    compiled = runtime_entities(entities)
    if compiled is None:
        notes.append("filters and sort: not probed (the draft does not compile)")
        return
    for name in names:
        entity = entities[name]
        walker = Walker(fetcher(entity.path), upstream.pagination)
        if not walker.walkable:
            notes.append(f"entities.{name}.filter: not probed (the listing cannot be walked)")
            continue
        everyone = walker.walk(compiled[name], {})
        if everyone.status is not None or not everyone.complete:
            notes.append(f"entities.{name}.filter: not probed (the listing was not read whole)")
            continue
        if not entity.filters:
            entity.filters, found = probe_filters(entity, compiled, everyone, walker, dialect)
            notes.extend(f"entities.{name}.{n}" for n in found)
        if entity.sort is None:
            entity.sort, found = probe_sorting(entity, compiled, everyone, walker, dialect)
            notes.extend(f"entities.{name}.{n}" for n in found)
