"""The probe's working model: what each source claims, and the merged draft.

Sources never write the mapping directly. Each one states `Claim`s about fields
(with the evidence source that makes them); `_merge` turns the claims into a
`FieldDraft` carrying its evidence, confidence and notes; `_render` builds the
runtime's typed mapping from the draft and writes it with the runtime's `dump`.
An evidence item (`Ev`) is the runtime's own `Evidence`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.mapping import Evidence

from ._errors import Finding
from ._naming import singular

Ev = Evidence  # one evidence item: a source, and what exactly it said when that matters

# The evidence vocabulary of mapping format 1 that the prober writes.
EVIDENCE_SOURCES = (
    "openapi", "swagger", "options", "links", "sample", "lookup", "name", "owner", "pocketbase",
    "metadata",
)  # fmt: skip
SPEC_SOURCES = ("openapi", "swagger")


@dataclass(frozen=True, slots=True)
class Claim:
    """One source's view of one field; None means "this source cannot tell"."""

    source: str
    type: str | None = None
    day_key: bool = False
    required: bool | None = None
    read_only: bool | None = None
    # The writes at which the upstream sets the field itself ("create", "update").
    server_sets: tuple[str, ...] = ()
    write_only: bool | None = None
    # Sent on create, absent from the update body: written on create only.
    create_only: bool | None = None
    # Sent on update, absent from the create body: written on update only.
    update_only: bool | None = None
    max: int | None = None
    values: tuple[Any, ...] = ()
    closed: bool = True
    entity: str | None = None
    # The source says "a relation" but not to what (DRF OPTIONS `field`).
    related: bool = False
    # The wire shape, for ref detection: string, integer, number, boolean, object,
    # and for arrays the item kind after "array:".
    wire: str | None = None
    nullable: bool | None = None
    description: str | None = None
    detail: str | None = None
    # The spec's `format` (unix-time, decimal); from samples, the wire codec the values
    # fit (0/1, epoch integers), for `decide._codecs` to weigh against the declaration.
    format: str | None = None
    codec: str | None = None


@dataclass(frozen=True, slots=True)
class Param:
    """A typed operation parameter or query parameter, with where it travels."""

    name: str
    where: str
    claim: Claim
    required: bool = False


@dataclass(slots=True)
class FieldDraft:
    name: str
    source: str
    type: str
    required: bool = False
    read_only: bool = False
    server_sets: tuple[str, ...] = ()
    write_only: bool = False
    create_only: bool = False
    update_only: bool = False
    # False only where the spec says a blank is refused and no sample shows one stored.
    nullable: bool | None = None
    max: int | None = None
    values: tuple[Any, ...] = ()
    values_closed: bool = True
    entity: str | None = None
    day_key: bool = False
    description: str | None = None
    evidence: list[Ev] = field(default_factory=list)
    confidence: str = "medium"
    notes: list[str] = field(default_factory=list)
    # Candidates kept for review only; never written as a type.
    ref_candidates: tuple[str, ...] = ()
    # What the upstream does to this field when its target is deleted: a candidate
    # from the stack's known behaviour, for the verifier to prove.
    upstream_on_delete: str | None = None
    # How the wire spells the value (a mapping `codec`), decided in `decide._codecs`.
    codec: str | None = None
    # Where writes put the value when that differs from `source` (a nested ref read
    # from ``severity.id`` and written as ``severity_id``).
    write_source: str | None = None
    # A list<ref> rendered as a list of nested objects (``[{"id": 1, "name": …}]``).
    nested: bool = False

    def nested_base(self) -> str | None:
        """``severity`` for a ref read from ``severity.id``, ``labels`` for a list of nested
        objects, with no write name yet."""
        if self.write_source is not None:
            return None
        if self.type == "list<ref>" and self.nested:
            return self.source
        if self.type != "ref":
            return None
        head, _, last = self.source.rpartition(".")
        return head if head and last == "id" else None

    def write_keys(self, base: str) -> tuple[str, ...]:
        """The keys an id (``severity_id``) or a list of ids (``label_ids``) is written under,
        by the two usual spellings."""
        if self.type == "list<ref>":
            one = singular(base)
            return (f"{one}_ids", f"{one}Ids")
        return (f"{base}_id", f"{base}Id")


@dataclass(frozen=True, slots=True)
class FilterDraft:
    param: str
    evidence: tuple[Ev, ...]


@dataclass(frozen=True, slots=True)
class SortDraft:
    param: str
    fields: tuple[str, ...]
    desc: str = "-"


@dataclass(slots=True)
class EntityDraft:
    name: str
    module: str
    path: str
    detail_path: str | None
    id_source: str
    id_type: str
    fields: dict[str, FieldDraft]
    summary: str | None = None
    filters: dict[str, dict[str, FilterDraft]] = field(default_factory=dict)
    sort: SortDraft | None = None
    write: dict[str, Any] = field(default_factory=dict)
    evidence: list[Ev] = field(default_factory=list)
    confidence: str = "medium"
    # How it is listed when not by GET on its path (a POST listing), as the file spells it.
    listing: dict[str, Any] | None = None
    # The client chooses the ids (a slug, a name): creates carry them.
    id_client: bool = False


@dataclass(slots=True)
class OperationDraft:
    name: str
    module: str
    method: str
    path: str
    send: str
    params: dict[str, Claim]
    required: frozenset[str]
    entity: str | None = None
    description: str | None = None
    destructive: bool = False
    read_only: bool = False
    idempotent: bool = False
    evidence: list[Ev] = field(default_factory=list)
    confidence: str = "medium"


@dataclass(slots=True)
class UpstreamDraft:
    auth: dict[str, str] = field(default_factory=lambda: {"type": "none"})
    headers: dict[str, str] = field(default_factory=dict)
    pagination: dict[str, Any] = field(default_factory=lambda: {"style": "none"})
    errors: str = "plain"
    dialect: str = "none"
    envelope: dict[str, str] = field(default_factory=dict)
    body_encoding: str = "json"
    # The status of one record that does not exist, when not 404 (see decide/_missing).
    not_found_status: int = 404


@dataclass(slots=True)
class Draft:
    app_id: str
    upstream: UpstreamDraft
    app_name: str | None = None
    app_version: str | None = None
    modules: dict[str, str | None] = field(default_factory=dict)
    entities: dict[str, EntityDraft] = field(default_factory=dict)
    operations: list[OperationDraft] = field(default_factory=list)
    unmapped: list[Finding] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    # Decisions without an evidence slot in the format (pagination, auth, errors,
    # dialect, sort), each as "<what>: <decision> (<source>: <why>; ...)".
    notes: list[str] = field(default_factory=list)
    # The URL probed: written as the default of ``${<APP>_URL}`` (None with a spec alone).
    base_url: str | None = None
