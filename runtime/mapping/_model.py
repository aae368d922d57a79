"""Frozen typed objects compiled from a validated mapping document.

Nothing downstream of the loader reads raw mapping dicts: the runtime, the
prober and the verifier all work on these classes.
"""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

from ._predicate import Predicate


class FieldType(StrEnum):
    """The protocol's closed type vocabulary; members compare equal to their spelling."""

    STRING = "string"
    NUMBER = "number"
    BOOLEAN = "boolean"
    DATETIME = "datetime"
    ENUM = "enum"
    REF = "ref"
    LIST_ENUM = "list<enum>"
    LIST_REF = "list<ref>"
    JSON = "json"
    BINARY = "binary"


class AuthType(StrEnum):
    NONE = "none"
    HEADER = "header"
    QUERY = "query"
    BEARER = "bearer"
    BASIC = "basic"


class PaginationStyle(StrEnum):
    PAGE = "page"
    OFFSET = "offset"
    CURSOR = "cursor"
    LINK = "link"
    RANGE = "range"
    NONE = "none"


class ErrorStyle(StrEnum):
    """How the upstream spells its 4xx bodies."""

    DRF = "drf"
    RAILS = "rails"
    POCKETBASE = "pocketbase"
    JSONAPI = "jsonapi"
    PLAIN = "plain"
    # `{errors: [{message, extensions: {field, code}}]}`, as GraphQL spells errors.
    GRAPHQL = "graphql"
    # `{error: {type, code, param, message}}`, one error naming its parameter, as
    # Stripe spells it (`param` in form notation: `metadata[plan]`).
    ERROR_OBJECT = "error-object"


class Dialect(StrEnum):
    """The upstream's filter and sort query language."""

    DJANGO_FILTER = "django-filter"
    RANSACK = "ransack"
    POCKETBASE = "pocketbase"
    JSON_SERVER = "json-server"
    NONE = "none"
    DIRECTUS = "directus"


FIELD_TYPES: tuple[str, ...] = tuple(t.value for t in FieldType)
# The key the file, the protocol and describe all spell a read-only flag with.
READ_ONLY = "readOnly"
FILTER_OPERATORS: tuple[str, ...] = (
    "=", "!=", ">", ">=", "<", "<=", "~", "!~",
    "?=", "?!=", "?>", "?>=", "?<", "?<=", "?~", "?!~",
)  # fmt: skip
DAY_KEY_FORMAT = "YYYY-MM-DD"
ServerWrite = Literal["create", "update"]
SERVER_WRITES: tuple[ServerWrite, ...] = ("create", "update")
Normalization = Literal[
    "trim", "collapse-spaces", "lowercase", "uppercase", "whole-seconds", "milliseconds"
]  # fmt: skip
STRING_NORMALIZATIONS: tuple[str, ...] = ("trim", "collapse-spaces", "lowercase", "uppercase")
DATETIME_NORMALIZATIONS: tuple[str, ...] = ("whole-seconds", "milliseconds")
NORMALIZATIONS = STRING_NORMALIZATIONS + DATETIME_NORMALIZATIONS


def served_values(
    kind: str, values: tuple[Any, ...], *, closed: bool
) -> tuple[str, tuple[Any, ...], tuple[Any, ...]]:
    """Type, promised values and candidates of a field as served.

    Values seen in samples are candidates, not a promise: an open enum is served
    as what it surely is (a string, or a json list), so no agent is refused a
    value the upstream would take.
    """
    if not closed and kind in ("enum", "list<enum>"):
        return ("string" if kind == "enum" else "json"), (), values
    return kind, values, ()


def frozen_map(data: AbcMapping[str, Any] | None = None) -> AbcMapping[str, Any]:
    """A read-only view, so compiled objects stay immutable all the way down."""
    return MappingProxyType(dict(data or {}))


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Field:
    """One field in the protocol's closed type vocabulary (also used for op params)."""

    name: str
    type: FieldType
    source: tuple[str, ...]
    required: bool = False
    read_only: bool = False
    # The writes at which the upstream sets a read-only field itself ("create",
    # "update"); empty: a value sent is refused or ignored at every write.
    server_sets: tuple[ServerWrite, ...] = ()
    write_only: bool = False
    # Written on create only: the upstream's update takes no such field.
    create_only: bool = False
    # Written on update only: the upstream's create takes no such field.
    update_only: bool = False
    # None: not known, and a blank clears the field (the protocol's rule); False: the
    # upstream refuses a blank, so the guard does; True: the upstream clears it on null
    nullable: bool | None = None
    max: int | None = None
    values: tuple[Any, ...] = ()
    values_closed: bool = True
    candidates: tuple[Any, ...] = ()  # values seen but not promised (an open enum)
    entity: str | None = None
    day_key: bool = False
    normalize: tuple[Normalization, ...] = ()
    decimals: int | None = None
    on_delete: Literal["restrict", "ignore"] = "restrict"
    upstream_on_delete: str | None = None
    # Whether the upstream itself refuses a write naming a record that does not exist
    # (None: not known). The runtime checks refs before a write either way, for now.
    upstream_checks_ref: bool | None = None
    description: str | None = None
    evidence: tuple[Evidence, ...] = ()
    confidence: str | None = None
    note: str | None = None
    # How the wire spells the value when not as the protocol does (see `_codecs`).
    codec: str | None = None
    # Where writes put the value when the upstream reads and writes it under
    # different names (read ``priority.id`` from a nested object, write ``priority_id``).
    write_source: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        # Callers may spell the type as text; the model always holds the member.
        if not isinstance(self.type, FieldType):
            object.__setattr__(self, "type", FieldType(self.type))

    @property
    def is_ref(self) -> bool:
        return self.type in ("ref", "list<ref>")

    @property
    def written_at(self) -> tuple[str, ...]:
        """The upstream path a write body carries this field's value at."""
        return self.source if self.write_source is None else self.write_source


@dataclass(frozen=True, slots=True)
class FilterParam:
    """How the upstream spells one operator on one field, and whether that was proven."""

    param: str
    proven: bool = False
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True, slots=True)
class SortSpec:
    param: str
    fields: tuple[str, ...]
    desc: str = "-"
    separator: str = ","
    proven: bool = False


@dataclass(frozen=True, slots=True)
class WriteSpec:
    create: bool = True
    # POST: the upstream updates by POST on the record's path (Stripe), changes only.
    update: Literal["PATCH", "PUT", "POST"] | None = "PATCH"
    delete: bool = True
    wrap: str | None = None
    # Where a write's answer holds the record, when not where reads find it ("" bare).
    answer: tuple[str, ...] | None = None
    # A unique field whose sent value finds a record whose create answered no id.
    find_by: str | None = None


@dataclass(frozen=True, slots=True)
class ListSpec:
    """How an entity is listed when not by GET on its path (``list:``).

    A POST listing (``POST /things/filter``) sends its paging parameters in a JSON
    body; `pagination`, when set, replaces ``upstream.pagination`` for this entity.
    """

    method: Literal["GET", "POST"] = "GET"
    path: str | None = None
    pagination: Pagination | None = None
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    module: str
    path: str
    detail_path: str
    id_source: tuple[str, ...]
    id_type: Literal["string", "integer"]
    fields: AbcMapping[str, Field]
    label: str | None
    summary: str | None = None
    auth: bool = False
    write_allow: tuple[str, ...] = ()
    filters: AbcMapping[str, AbcMapping[str, FilterParam]] = field(default_factory=frozen_map)
    sort: SortSpec | None = None
    write: WriteSpec = WriteSpec()
    evidence: tuple[Evidence, ...] = ()
    confidence: str | None = None
    # The client chooses the id (a slug, a name): a create carries it as `id`.
    id_client: bool = False
    listing: ListSpec | None = None

    @property
    def list_path(self) -> str:
        """Where the records are listed: the ``list.path``, else the entity's path."""
        return self.listing.path if self.listing and self.listing.path else self.path

    @property
    def list_method(self) -> Literal["GET", "POST"]:
        return self.listing.method if self.listing else "GET"

    def field_list(self) -> tuple[Field, ...]:
        return tuple(self.fields.values())

    def create_fields(self) -> AbcMapping[str, Field]:
        """The fields a create body may hold: with a client-chosen id, `id` too (required)."""
        if not self.id_client:
            return self.fields
        ident = Field(name="id", type=FieldType.STRING, source=self.id_source, required=True)
        return frozen_map({"id": ident, **self.fields})


@dataclass(frozen=True, slots=True)
class Module:
    name: str
    summary: str | None = None


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    send: Literal["body", "query", "none"] = "body"


@dataclass(frozen=True, slots=True)
class CrudExecutor:
    action: str
    entity: str
    target: str | None = None
    set: AbcMapping[str, Any] = field(default_factory=frozen_map)
    filter: str | None = None


@dataclass(frozen=True, slots=True)
class JobExecutor:
    request: Request
    timeout_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class ResponseProjection:
    pick: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Schedule:
    """When the runtime calls an operation itself: `when` is `every <n>m`, `every <n>h`,
    `hourly` or `daily HH:MM`, read in `serve.timeZone`; `on_missed` says whether a
    slot that passed while no runtime served is run once at start; `approved_by` is
    the owner's approval a destructive operation needs to be scheduled at all."""

    when: str
    on_missed: Literal["run", "skip"] = "skip"
    approved_by: Literal["owner"] | None = None


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    module: str
    destructive: bool
    params: AbcMapping[str, Field]
    description: str | None = None
    entity: str | None = None
    read_only: bool = False
    idempotent: bool = False
    applies_when: Predicate | None = None
    request: Request | None = None
    crud: CrudExecutor | None = None
    job: JobExecutor | None = None
    response: ResponseProjection | None = None
    schedule: Schedule | None = None
    evidence: tuple[Evidence, ...] = ()
    confidence: str | None = None

    @property
    def executor(self) -> Literal["http", "crud", "job", "none"]:
        if self.request is not None:
            return "http"
        if self.crud is not None:
            return "crud"
        if self.job is not None:
            return "job"
        return "none"


@dataclass(frozen=True, slots=True)
class Auth:
    """Upstream credentials; values are templates resolved from the environment."""

    type: AuthType
    name: str | None = None
    value: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.type, AuthType):
            object.__setattr__(self, "type", AuthType(self.type))


@dataclass(frozen=True, slots=True)
class Pagination:
    style: PaginationStyle
    page: str | None = None
    size: str | None = None
    offset: str | None = None
    cursor: str | None = None
    items: tuple[str, ...] = ()
    total: tuple[str, ...] | None = None
    total_header: str | None = None
    next: tuple[str, ...] | None = None
    max_size: int | None = None
    first_page: int = 1
    # Cursor from the last record of a page (``nextFrom``), while ``more`` is true.
    next_from: tuple[str, ...] | None = None
    more: tuple[str, ...] | None = None
    # A header holding the next page's URL or cursor (``X-Next-Page``), not the body.
    next_header: str | None = None
    # Style ``range``: ``Range: items=0-24`` (or ``Range-Unit: items`` + ``Range: 0-24``).
    unit: str | None = None
    unit_header: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.style, PaginationStyle):
            object.__setattr__(self, "style", PaginationStyle(self.style))


@dataclass(frozen=True, slots=True)
class Upstream:
    base_url: str
    auth: Auth = Auth(type=AuthType.NONE)
    headers: AbcMapping[str, str] = field(default_factory=frozen_map, repr=False)
    pagination: Pagination = Pagination(style=PaginationStyle.NONE)
    errors: ErrorStyle = ErrorStyle.PLAIN
    dialect: Dialect = Dialect.NONE
    timeout_seconds: float = 10.0
    item_envelope: tuple[str, ...] = ()
    write_envelope: str | None = None
    # How write and operation bodies are sent: JSON, or a form with bracket nesting.
    body_encoding: Literal["json", "form"] = "json"
    # The status of a read, update or delete of a record that does not exist: 404,
    # or 403 for upstreams that do not tell a missing record from a forbidden one.
    not_found_status: int = 404

    def __post_init__(self) -> None:
        if not isinstance(self.errors, ErrorStyle):
            object.__setattr__(self, "errors", ErrorStyle(self.errors))
        if not isinstance(self.dialect, Dialect):
            object.__setattr__(self, "dialect", Dialect(self.dialect))


@dataclass(frozen=True, slots=True)
class RateLimits:
    data: int = 1200
    ops: int = 300


@dataclass(frozen=True, slots=True)
class Trigger:
    """An event the runtime raises for the app: each record of `entity` that `filter`
    matches is one occurrence; with `capability`, a task is enqueued for it too.

    `payload` lists the record's fields the event carries (empty: the whole record);
    `dedup_key` lists the fields that make one occurrence (empty: the whole payload,
    so a changed record is a new occurrence).
    """

    type: str
    entity: str
    filter: str
    capability: str | None = None
    payload: tuple[str, ...] = ()
    dedup_key: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Feed:
    """The change feed: every `interval` seconds each of `entities` is read and compared
    with what the last poll saw; `budget` caps the upstream requests spent per minute."""

    entities: tuple[str, ...]
    interval: int = 60
    budget: int = 60
    # entity -> the datetime field `a2map verify` proved moves forward on every update
    # and sorts an updated record first (`Stamp.apply`); never read from the file. Only
    # these entities are walked newest first.
    modified: AbcMapping[str, str] = field(default_factory=frozen_map)
    # the entities whose listing's ETag the verifier proved answers 304 until a record
    # changes (`Stamp.apply`): a complete walk whose conditional ask is answered 304 is
    # skipped, when the tagged answer is the whole listing
    etags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Hook:
    """An inbound webhook (`serve.hooks.<name>`): each delivery whose signature holds is
    one event of type `event`; with `capability`, a task is enqueued for it too.

    `scheme` names how deliveries are signed (a verifier per scheme in the runtime);
    `header`, `encoding` and `prefix` are read by `hmac-sha256`, `tolerance` by
    `standard-webhooks`. `payload` lists the body's dotted fields the event carries
    (empty: the whole body).
    """

    scheme: Literal["standard-webhooks", "hmac-sha256"]
    # resolved from the environment when served; never printed
    secret: str = field(repr=False)
    event: str
    payload: tuple[str, ...] = ()
    capability: str | None = None
    tolerance: int = 300
    header: str | None = None
    encoding: Literal["hex", "base64"] = "hex"
    prefix: str = ""


@dataclass(frozen=True, slots=True)
class Serve:
    auth_mode: Literal["none", "multi-user"] = "none"
    allowed_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    credential_hint: str | None = None
    approvals: Literal["host", "owner"] = "host"
    conventions: AbcMapping[str, str] = field(default_factory=frozen_map)
    rate_limits: RateLimits = RateLimits()
    scan_limit: int = 10_000
    triggers: tuple[Trigger, ...] = ()
    feed: Feed | None = None
    hooks: AbcMapping[str, Hook] = field(default_factory=frozen_map)
    time_zone: str = "UTC"  # IANA name; schedules are read in it


@dataclass(frozen=True, slots=True)
class Unmapped:
    path: str
    reason: str
    method: str | None = None


@dataclass(frozen=True, slots=True)
class ProbeRecord:
    """How the mapping was produced: the prober's tool, sources and decision notes."""

    tool: str | None = None
    sources: tuple[str, ...] | None = None
    notes: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class App:
    id: str
    name: str | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True)
class Mapping:
    """A whole compiled mapping: the contract between the mapper and the runtime."""

    format: int
    app: App
    upstream: Upstream
    modules: tuple[Module, ...]
    entities: AbcMapping[str, Entity]
    operations: tuple[Operation, ...]
    serve: Serve
    unmapped: tuple[Unmapped, ...]
    content_hash: str
    source_path: str | None = None
    probe: ProbeRecord | None = None

    def module(self, name: str) -> Module | None:
        return next((m for m in self.modules if m.name == name), None)

    def operation(self, name: str) -> Operation | None:
        return next((o for o in self.operations if o.name == name), None)

    def entities_in(self, module: str) -> tuple[Entity, ...]:
        return tuple(e for e in self.entities.values() if e.module == module)

    def operations_in(self, module: str) -> tuple[Operation, ...]:
        return tuple(o for o in self.operations if o.module == module)
