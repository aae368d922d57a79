"""The steps of a probe around an upstream's metadata API (see `sources._metadata`).

``settle`` runs once the samples are in: fields the metadata does not map leave the
samples too, sampled ids of a declared relation say "a relation" rather than
"a number", and each relation is confirmed by one lookup of a sampled id at its
target's detail route; a boolean answered 0/1 is noted as needing a value codec.
``finish`` runs once the entities are drafted: filters and sorts are probed
read-only in the dialect the convention names (declared only where the answers
hold exactly what the protocol selects), and each entity and field says which
metadata answer declared it, and what it said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._draft import Claim, EntityDraft, Ev, UpstreamDraft
from ..live import sample_claims
from ..sources import METADATA, Metadata, describe_field, read_metadata
from ._declared import as_relation, declared_ref
from ._entities import Source
from ._nospec import Fetcher
from ._steps import Live

if TYPE_CHECKING:
    from ..live import ProbeClient


def metadata(client: ProbeClient | None, wanted: bool) -> Described:
    """The upstream's own description of its collections, when it has a metadata API."""
    if client is None or not wanted:
        return Described(Metadata())
    return Described(read_metadata(client))


class Described:
    """One probe's metadata and the steps that use it."""

    def __init__(self, found: Metadata) -> None:
        self.found = found

    def adopt(self, sources: Mapping[str, Source]) -> None:
        for name in self.found.definitions:
            if name in sources:
                sources[name].spec_source = METADATA

    def settle(self, sources: Mapping[str, Source], live: Live | None) -> None:
        for name in self.found.definitions:
            src = sources.get(name)
            if src is None or src.spec is None:
                continue
            declared = src.spec.fields
            dropped = self.found.skipped.get(name, set())
            if src.obs is not None and src.obs.finding is None:
                src.obs.records = [
                    {k: v for k, v in r.items() if k not in dropped} for r in src.obs.records
                ]
                src.obs.seen = src.obs.seen - dropped
                claims = sample_claims(src.obs.records, False)
                src.obs.claims = {w: as_relation(declared.get(w), c) for w, c in claims.items()}
            for wire, claim in declared.items():
                if claim.type in ("ref", "list<ref>") and claim.entity in sources:
                    src.refs[wire] = declared_ref(src, wire, claim, sources, live)
            self.found.notes.extend(codec_notes(name, declared, src.records))

    def finish(
        self, entities: Mapping[str, EntityDraft], upstream: UpstreamDraft,
        fetcher: Fetcher | None, notes: list[str],
    ) -> None:  # fmt: skip
        if not self.found.read or self.found.convention is None:
            return
        convention = self.found.convention
        if fetcher is not None and convention.dialect and upstream.dialect == "none":
            self._queries(entities, upstream, fetcher, convention.dialect, notes)
        for name, entity in entities.items():
            raw = self.found.definitions.get(name)
            if raw is None:
                continue
            fields = convention.fields.format(collection=name)
            said = Ev(METADATA, f"GET {self.found.listing} and {fields}: collection {name}")
            entity.evidence = [said, *(e for e in entity.evidence if e.source != METADATA)]
            effects = self.found.on_delete.get(name, {})
            for f in entity.fields.values():
                item = raw.get(f.source)
                if item is None:
                    continue
                effect = effects.get(f.source)
                if effect is not None and f.type in ("ref", "list<ref>"):
                    f.upstream_on_delete = effect
                    notes.append(f"entities.{name}.fields.{f.name}.upstreamOnDelete: {effect} "
                                 f"({METADATA}: the relation's on_delete; a candidate for the "
                                 "verifier)")  # fmt: skip
                detail = Ev(METADATA, describe_field(item, convention.type_key))
                f.evidence = [detail if e == Ev(METADATA) else e for e in f.evidence]
        notes.extend(self.found.notes)

    def _queries(
        self, entities: Mapping[str, EntityDraft], upstream: UpstreamDraft, fetcher: Fetcher,
        name: str, notes: list[str],
    ) -> None:  # fmt: skip
        """Filters and sorts in the convention's dialect, each proved by the answers."""
        # the runtime's query planner and upstream client, loaded by a live probe only
        from runtime.upstream import dialect_for

        from ._judge import Walker, runtime_entities
        from ._narrowing import probe_filters
        from ._ordering import probe_sorting

        compiled = runtime_entities(entities)
        if compiled is None:
            return
        dialect = dialect_for(name)
        found: list[str] = []
        for entity_name in self.found.definitions:
            entity = entities.get(entity_name)
            if entity is None:
                continue
            walker = Walker(fetcher(entity.path), upstream.pagination)
            everyone = walker.walk(compiled[entity_name], {})
            if not walker.walkable or everyone.status is not None or not everyone.complete:
                found.append(f"entities.{entity_name}.filter: not probed (not read whole)")
                continue
            filters, said = probe_filters(entity, compiled, everyone, walker, dialect)
            sort, ordered = probe_sorting(entity, compiled, everyone, walker, dialect)
            entity.filters, entity.sort = filters or entity.filters, sort or entity.sort
            found.extend(f"entities.{entity_name}.{n}" for n in [*said, *ordered])
        if any(e.filters or e.sort for n, e in entities.items() if n in self.found.definitions):
            upstream.dialect = name
            why = "each filter and sort below answered exactly as the protocol's"
            notes.append(f"upstream.dialect: {name} ({METADATA}: the convention's dialect; {why})")
        notes.extend(found)

    def used(self) -> list[str]:
        if not self.found.read or self.found.convention is None:
            return []
        return [f"{METADATA}: GET {self.found.listing} ({self.found.convention.name})"]


def codec_notes(
    name: str, declared: Mapping[str, Claim], records: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Where the wire contradicts the metadata in a way only a value codec resolves.

    A boolean column the database keeps as an integer (SQLite) is answered 0/1 unless
    the field casts it: the metadata still says boolean, so the field keeps that type,
    its disagreement noted, for the verifier to refuse until a codec maps it."""
    notes = []
    for wire, claim in declared.items():
        values = [r.get(wire) for r in records if r.get(wire) is not None]
        numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        if claim.type == "boolean" and values and numbers and set(values) <= {0, 1}:
            notes.append(
                f"entities.{name}.fields.{wire}: the metadata says boolean, the wire says 0/1 "
                "(a 0/1 <-> boolean value codec is needed to map it as a boolean)"
            )
    return notes
