"""The PocketBase steps of a probe, around the generic ones (see `_pocketbase`).

``settle`` runs once the samples are in: PocketBase writes ``""`` for an unset
select, relation, date, number or boolean, which the runtime reads as null, so
the samples are read the same way before they are judged; relation fields are
refs to the collection the schema names, confirmed by one lookup of a sampled
id. ``finish`` runs once the entities are drafted: the native ``filter`` and
``sort`` the runtime's planner pushes down, each relation's delete effect as
PocketBase documents it (``cascadeDelete``; a required relation blocks the
delete; otherwise the reference is cleared), for the verifier to prove.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._draft import Claim, EntityDraft, Ev, FieldDraft, FilterDraft, SortDraft, UpstreamDraft
from ..live import sample_claims
from ..sources import SOURCE, Schema, looks_like_pocketbase, read_schema
from ._declared import as_relation, declared_ref
from ._entities import Source
from ._steps import Live

if TYPE_CHECKING:
    from ..live import Exchange, ProbeClient

MAX_PER_PAGE = 1000  # PocketBase clamps perPage to this
_BLANK_IS_NULL = ("enum", "ref", "datetime", "number", "boolean")
# Keys PocketBase adds to every record, which no collection declares.
METADATA = ("collectionId", "collectionName", "expand")
_ORDERED = ("=", "!=", "<", "<=", ">", ">=")
# Operators whose native form the runtime's planner pushes down exactly, by field type.
OPERATORS: dict[str, tuple[str, ...]] = {
    "id": ("=", "!="),
    "string": (*_ORDERED, "~", "!~"),
    "number": _ORDERED,
    "boolean": ("=", "!="),
    "datetime": _ORDERED,
    "enum": ("=", "!="),
    "ref": ("=", "!="),
    "list<enum>": ("?=",),
    "list<ref>": ("?=",),
}
SORTABLE = ("string", "number", "boolean", "datetime", "enum", "ref")


def pocketbase(client: ProbeClient | None, first: Exchange | None) -> Native:
    """The schema when the upstream answered `first` as PocketBase does; else an empty one."""
    if client is None or not looks_like_pocketbase(first):
        return Native(Schema())
    return Native(read_schema(client), client)


class Native:
    """One probe's PocketBase schema and the steps that use it."""

    def __init__(self, schema: Schema, client: ProbeClient | None = None) -> None:
        self.schema = schema
        self.client = client

    def adopt(self, sources: Mapping[str, Source]) -> None:
        for name in self.schema.definitions:
            if name in sources:
                sources[name].spec_source = SOURCE

    def settle(self, sources: Mapping[str, Source], live: Live | None) -> None:
        for name in self.schema.definitions:
            src = sources.get(name)
            if src is None or src.spec is None:
                continue
            declared = src.spec.fields
            if src.obs is not None and src.obs.finding is None:
                dropped = {*METADATA, *self.schema.skipped.get(name, ())}
                src.obs.records = [_unblank(r, declared, dropped) for r in src.obs.records]
                src.obs.seen = src.obs.seen - dropped
                claims = sample_claims(src.obs.records, False)
                for wire, sample in claims.items():
                    claims[wire] = as_relation(declared.get(wire), sample)
                src.obs.claims = claims
            for wire, claim in declared.items():
                src.refs[wire] = declared_ref(src, wire, claim, sources, live)

    def finish(
        self, entities: Mapping[str, EntityDraft], upstream: UpstreamDraft, notes: list[str]
    ) -> None:
        if not self.schema.read:
            return
        for key, value in (("errors", "pocketbase"), ("dialect", "pocketbase")):
            if getattr(upstream, key) != value:
                setattr(upstream, key, value)
                notes.append(f"upstream.{key}: {value} (pocketbase: the collection schema)")
        if upstream.pagination.get("style") == "page":
            if "maxSize" not in upstream.pagination:
                upstream.pagination["maxSize"] = MAX_PER_PAGE
                notes.append(f"upstream.pagination: maxSize {MAX_PER_PAGE} (pocketbase: cap)")
            self._second_page(entities, upstream.pagination, notes)
        for name, entity in entities.items():
            coll = self.schema.definitions.get(name)
            if coll is None:
                continue
            detail = f"GET /api/collections: {coll.type} collection {name}"
            rest = [e for e in entity.evidence if e.source != SOURCE]
            entity.evidence = [Ev(SOURCE, detail), *rest]
            entity.filters = _filters(entity)
            sortable = ["id", *(f.name for f in entity.fields.values() if _sortable(f))]
            entity.sort = SortDraft("sort", tuple(sortable))
            notes.append(
                f"entities.{name}.filter: native filter (pocketbase: the planner writes "
                "whole expressions; forms whose semantics differ stay local)"
            )
            notes.append(f"entities.{name}.sort: {', '.join(sortable)} (pocketbase: columns)")
            for f in entity.fields.values():
                effect = _on_delete(coll.fields.get(f.source, {}), f.type)
                if effect is not None:
                    f.upstream_on_delete = effect
                    notes.append(f"entities.{name}.fields.{f.name}.upstreamOnDelete: {effect} "
                                 f"({_why(effect)}; a candidate for the verifier)")  # fmt: skip
        notes.extend(self.schema.notes)
        notes.append(f"{', '.join(METADATA)}: record metadata PocketBase adds, not fields")

    def _second_page(
        self, entities: Mapping[str, EntityDraft], pagination: Mapping[str, Any], notes: list[str]
    ) -> None:
        """The page parameter, seen at work: page 2 of one-record pages echoes page 2."""
        page, size = pagination.get("page"), pagination.get("size")
        if self.client is None or not (page and size) or not entities:
            return
        path = next((e.path for n, e in entities.items() if n in self.schema.definitions), None)
        if path is None:
            return
        answer = self.client.get(path, {page: "2", size: "1"})
        body = answer.body if answer.ok and isinstance(answer.body, Mapping) else {}
        if body.get("page") != 2 or body.get("perPage") != 1:
            return
        notes[:] = [
            n
            for n in notes
            if not n.startswith(f"upstream.pagination: page parameter {page}: assumed")
        ]
        notes.append(f"upstream.pagination: page parameter {page}: honoured (pocketbase: "
                     f"{page}=2&{size}=1 answers page 2)")  # fmt: skip

    def used(self) -> list[str]:
        return [f"{SOURCE}: GET /api/collections"] if self.schema.read else []


def _unblank(
    record: Mapping[str, Any], declared: Mapping[str, Claim], dropped: set[str]
) -> dict[str, Any]:
    """A sampled record without what is not mapped, its blanks read as the runtime reads them."""
    out = {k: v for k, v in record.items() if k not in dropped}
    for wire, claim in declared.items():
        if out.get(wire) == "" and claim.type in _BLANK_IS_NULL:
            out[wire] = None
    return out


def _filters(entity: EntityDraft) -> dict[str, dict[str, FilterDraft]]:
    out = {"id": {op: FilterDraft("filter", (Ev(SOURCE),)) for op in OPERATORS["id"]}}
    for f in entity.fields.values():
        if f.write_only or f.day_key or "." in f.source:
            continue
        ops = OPERATORS.get(f.type, ())
        if ops:
            out[f.name] = {op: FilterDraft("filter", (Ev(SOURCE),)) for op in ops}
    return out


def _sortable(f: FieldDraft) -> bool:
    return f.type in SORTABLE and not f.write_only and "." not in f.source


def _on_delete(spec: Mapping[str, Any], kind: str) -> str | None:
    if spec.get("type") != "relation" or kind not in ("ref", "list<ref>"):
        return None
    if spec.get("cascadeDelete"):
        return "cascade"
    return "restrict" if spec.get("required") else "set-null"


def _why(effect: str) -> str:
    return {
        "cascade": "pocketbase: cascadeDelete is on",
        "restrict": "pocketbase: a required relation without cascadeDelete blocks the delete",
        "set-null": "pocketbase: cascadeDelete is off, so the reference is cleared",
    }[effect]
