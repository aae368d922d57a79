"""The runtime's own view of a draft, and whole listings read through the probe client.

Filter and sort candidates are judged the way the runtime will use them: the
draft is compiled by the runtime's mapping loader, values are spelled by the
runtime's planner and dialect, and what comes back is compared with the
runtime's own evaluator over the unfiltered listing. Only GETs are sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.mapping import Entity, MappingError, load_mapping_text
from runtime.protocol import ProtocolError
from runtime.upstream import to_protocol

from ._draft import EntityDraft
from ._http import Exchange
from ._render import _entity as entity_document
from ._samples import envelope_of, records_of

Fetch = Callable[[Mapping[str, str]], Exchange]
PAGE_SIZE = 100
MAX_PAGES = 10


def runtime_entities(drafts: Mapping[str, EntityDraft]) -> dict[str, Entity] | None:
    """The drafts as the runtime compiles them; None when they do not load."""
    modules = sorted({d.module for d in drafts.values()})
    doc = {
        "format": 1,
        "app": {"id": "probe"},
        "upstream": {"baseUrl": "http://upstream.invalid"},
        "modules": [{"name": m} for m in modules],
        "entities": {name: entity_document(d) for name, d in drafts.items()},
    }
    try:
        mapping = load_mapping_text(json.dumps(doc), resolve_env=False)
    except MappingError:
        return None
    return dict(mapping.entities)


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
        self.walkable = pagination.get("style") == "none" or bool(self.page and self.size)

    def walk(self, entity: Entity, params: Mapping[str, str]) -> Listing:
        records: list[dict[str, Any]] = []
        pages = range(MAX_PAGES) if self.page and self.size else range(1)
        for number in pages:
            extra = {self.page: str(self.first + number), self.size: str(PAGE_SIZE)}
            answer = self.fetch({**params, **extra} if self.page and self.size else params)
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
            if not (self.page and self.size) or len(chunk) < PAGE_SIZE:
                return Listing(records, complete=True)
        return Listing(records, complete=False)
