"""The runtime's own view of a draft, and whole listings read through the probe client.

Filter and sort candidates are judged the way the runtime will use them: the
draft is built as the runtime's typed entities and checked by its mapping rules,
values are spelled by the runtime's planner and dialect, and what comes back is compared with the
runtime's own evaluator over the unfiltered listing. Only GETs are sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from runtime.mapping import App, Entity, Module, Serve, Upstream, check_document, dump
from runtime.mapping import Mapping as MappingModel
from runtime.protocol import ProtocolError
from runtime.upstream import to_protocol

from .._draft import EntityDraft
from ..live import envelope_of, records_of
from ..render import entity_model

if TYPE_CHECKING:
    from ..live import Exchange

Fetch: TypeAlias = "Callable[[Mapping[str, str]], Exchange]"
PAGE_SIZE = 100
MAX_PAGES = 10


def runtime_entities(drafts: Mapping[str, EntityDraft]) -> dict[str, Entity] | None:
    """The drafts as the runtime's entities; None when the loader would refuse them."""
    entities = {name: entity_model(d) for name, d in drafts.items()}
    modules = sorted({d.module for d in drafts.values()})
    probe = MappingModel(
        format=1,
        app=App("probe"),
        upstream=Upstream(base_url="http://upstream.invalid"),
        modules=tuple(Module(m) for m in modules),
        entities=entities,
        operations=(),
        serve=Serve(),
        unmapped=(),
        content_hash="",
    )
    if check_document(dump(probe)):
        return None
    return entities


@dataclass(frozen=True, slots=True)
class Listing:
    """A listing as protocol records; `status` is set when the upstream refused it."""

    records: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False
    status: int | None = None

    @property
    def ids(self) -> list[str]:
        return [str(r["id"]) for r in self.records]


class Walker:
    """Reads a whole listing with the upstream's own page and size parameters."""

    def __init__(self, fetch: Fetch, pagination: Mapping[str, Any]) -> None:
        self.fetch = fetch
        paged = pagination.get("style") in ("page", "link")
        self.page = str(pagination.get("page") or "") if paged else ""
        self.size = str(pagination.get("size") or "")
        self.first = int(pagination.get("firstPage", 1))
        offset = pagination.get("style") == "offset"
        self.offset = str(pagination.get("offset") or "") if offset else ""
        self.walkable = pagination.get("style") == "none" or bool(self.page and self.size)
        self.walkable = self.walkable or bool(self.offset and self.size)

    def _extra(self, number: int) -> dict[str, str]:
        """The paging parameters of page `number` (from 0), or none for a one-page list."""
        if self.page and self.size:
            return {self.page: str(self.first + number), self.size: str(PAGE_SIZE)}
        if self.offset and self.size:
            return {self.offset: str(number * PAGE_SIZE), self.size: str(PAGE_SIZE)}
        return {}

    def walk(self, entity: Entity, params: Mapping[str, str]) -> Listing:
        records: list[dict[str, Any]] = []
        paged = bool(self._extra(0))
        pages = range(MAX_PAGES) if paged else range(1)
        for number in pages:
            answer = self.fetch({**params, **self._extra(number)})
            if not answer.ok:
                return Listing(status=answer.status or 0)
            envelope = envelope_of(answer.body, answer.content_type)
            if envelope is None:
                return Listing(status=answer.status)
            chunk = records_of(answer.body, envelope)
            try:
                records.extend(to_protocol(entity, dict(r)) for r in chunk)
            except ProtocolError:
                return Listing(status=answer.status)
            if not paged or len(chunk) < PAGE_SIZE:
                return Listing(records, complete=True)
        return Listing(records, complete=False)
