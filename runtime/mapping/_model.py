"""Frozen typed objects compiled from a validated mapping document.

Nothing downstream of the loader reads raw mapping dicts: the runtime, the
prober and the verifier all work on these classes.
"""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

FieldType = Literal[
    "string", "number", "boolean", "datetime", "enum", "ref",
    "list<enum>", "list<ref>", "json", "binary",
]  # fmt: skip
FIELD_TYPES: tuple[str, ...] = (
    "string", "number", "boolean", "datetime", "enum", "ref",
    "list<enum>", "list<ref>", "json", "binary",
)  # fmt: skip
FILTER_OPERATORS: tuple[str, ...] = (
    "=", "!=", ">", ">=", "<", "<=", "~", "!~",
    "?=", "?!=", "?>", "?>=", "?<", "?<=", "?~", "?!~",
)  # fmt: skip
DAY_KEY_FORMAT = "YYYY-MM-DD"
Normalization = Literal[
    "trim", "collapse-spaces", "lowercase", "uppercase", "whole-seconds", "milliseconds"
]  # fmt: skip
STRING_NORMALIZATIONS: tuple[str, ...] = ("trim", "collapse-spaces", "lowercase", "uppercase")
DATETIME_NORMALIZATIONS: tuple[str, ...] = ("whole-seconds", "milliseconds")
NORMALIZATIONS = STRING_NORMALIZATIONS + DATETIME_NORMALIZATIONS


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
    type: str
    source: tuple[str, ...]
    required: bool = False
    read_only: bool = False
    write_only: bool = False
    # None: a blank clears the field (the protocol's rule); False: a blank is refused
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
    description: str | None = None
    evidence: tuple[Evidence, ...] = ()
    confidence: str | None = None
    note: str | None = None

    @property
    def is_ref(self) -> bool:
        return self.type in ("ref", "list<ref>")


@dataclass(frozen=True, slots=True)
class FilterParam:
    """How the upstream spells one operator on one field, and whether that was proven."""

    param: str
    proven: bool = False


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
    update: Literal["PATCH", "PUT"] | None = "PATCH"
    delete: bool = True
    wrap: str | None = None


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

    def field_list(self) -> tuple[Field, ...]:
        return tuple(self.fields.values())


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
class Operation:
    name: str
    module: str
    destructive: bool
    params: AbcMapping[str, Field]
    description: str | None = None
    entity: str | None = None
    read_only: bool = False
    idempotent: bool = False
    applies_when: Any = None  # the closed predicate language, kept as frozen JSON
    request: Request | None = None
    crud: CrudExecutor | None = None
    job: JobExecutor | None = None
    response: ResponseProjection | None = None
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

    type: Literal["none", "header", "query", "bearer", "basic"]
    name: str | None = None
    value: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class Pagination:
    style: Literal["page", "offset", "cursor", "link", "none"]
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


@dataclass(frozen=True, slots=True)
class Upstream:
    base_url: str
    auth: Auth = Auth(type="none")
    headers: AbcMapping[str, str] = field(default_factory=frozen_map, repr=False)
    pagination: Pagination = Pagination(style="none")
    errors: str = "plain"
    dialect: str = "none"
    timeout_seconds: float = 10.0
    item_envelope: tuple[str, ...] = ()
    write_envelope: str | None = None


@dataclass(frozen=True, slots=True)
class RateLimits:
    data: int = 1200
    ops: int = 300


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


@dataclass(frozen=True, slots=True)
class Unmapped:
    path: str
    reason: str
    method: str | None = None


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

    def module(self, name: str) -> Module | None:
        return next((m for m in self.modules if m.name == name), None)

    def operation(self, name: str) -> Operation | None:
        return next((o for o in self.operations if o.name == name), None)

    def entities_in(self, module: str) -> tuple[Entity, ...]:
        return tuple(e for e in self.entities.values() if e.module == module)

    def operations_in(self, module: str) -> tuple[Operation, ...]:
        return tuple(o for o in self.operations if o.module == module)
