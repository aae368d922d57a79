"""The draft as the runtime's typed mapping, written with the runtime's `dump`.

The draft is the probe's mutable accumulator; here it becomes the frozen model
the runtime serves, so what the prober writes is exactly what the loader reads.
No record values and no times reach it; the upstream URL is ``${<APP>_URL}``, with
the probed URL as its default.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping as AbcMapping
from types import MappingProxyType as frozen
from typing import Any, Literal, cast

from runtime.mapping import (
    FILTER_OPERATORS,
    SERVER_WRITES,
    App,
    Dialect,
    Entity,
    ErrorStyle,
    Field,
    FieldType,
    FilterParam,
    Mapping,
    Module,
    Operation,
    ProbeRecord,
    Request,
    Serve,
    SortSpec,
    Unmapped,
    Upstream,
    WriteSpec,
    compile_auth,
    compile_listing,
    compile_pagination,
    content_hash,
    default_label,
    dump,
    dump_yaml,
    served_values,
)

from .._draft import Claim, Draft, EntityDraft, FieldDraft, OperationDraft
from .._naming import env_prefix

TOOL = "a2map probe"
_Send = Literal["body", "query", "none"]
_ENUMS = ("enum", "list<enum>")


def _dotted(path: str | None) -> tuple[str, ...]:
    return tuple(part for part in (path or "").split(".") if part)


def _text(value: str | None) -> str | None:
    """Descriptions on one line: a spec's line breaks are layout, not meaning."""
    return " ".join(value.split()) if value else None


def _field(f: FieldDraft) -> Field:
    string = f.type == "string"
    closed = f.values_closed or not (f.values and f.type in _ENUMS)
    kind, values, candidates = served_values(
        f.type, f.values if f.type in _ENUMS else (), closed=closed
    )
    return Field(
        name=f.name,
        type=FieldType(kind),
        source=_dotted(f.source),
        required=f.required,
        read_only=f.read_only,
        server_sets=tuple(w for w in SERVER_WRITES if w in f.server_sets) if f.read_only else (),
        write_only=f.write_only,
        create_only=f.create_only and not f.read_only,
        update_only=f.update_only and not f.read_only and not f.required,
        nullable=False if f.nullable is False else None,
        max=f.max if string else None,
        values=values,
        values_closed=closed,
        candidates=candidates,
        entity=f.entity,
        day_key=f.day_key and string,
        upstream_on_delete=f.upstream_on_delete,
        description=_text(f.description),
        evidence=tuple(f.evidence),
        confidence=f.confidence,
        note="; ".join(dict.fromkeys(f.notes)) if f.notes else None,
        codec=f.codec,
        write_source=None if f.write_source is None else _dotted(f.write_source),
    )


def label_of(fields: AbcMapping[str, FieldDraft]) -> str | None:
    """The protocol's rule: title, name or label, else the first required writable string."""
    for name in ("title", "name", "label"):
        if name in fields and not fields[name].write_only:
            return name
    return next(
        (f.name for f in fields.values() if f.type == "string" and f.required and not f.read_only),
        None,
    )


def entity_model(e: EntityDraft) -> Entity:
    fields = {name: _field(f) for name, f in e.fields.items()}
    default = e.path.rstrip("/") + "/{id}" + ("/" if e.path.endswith("/") else "")
    order = ["id", *e.fields]
    filters = {
        name: {
            op: FilterParam(ops[op].param, evidence=tuple(ops[op].evidence))
            for op in FILTER_OPERATORS
            if op in ops
        }
        for name, ops in sorted(e.filters.items(), key=lambda kv: order.index(kv[0]))
    }
    update = e.write.get("update", "PATCH")
    return Entity(
        name=e.name,
        module=e.module,
        path=e.path,
        detail_path=e.detail_path or default,
        id_source=_dotted(e.id_source),
        id_type="integer" if e.id_type == "integer" else "string",
        fields=frozen(fields),
        # Without a label in the file the loader falls back to the protocol's default.
        label=label_of(e.fields) or default_label(fields),
        summary=_text(e.summary),
        filters=frozen({name: frozen(ops) for name, ops in filters.items()}),
        # json-server orders with `_order`: no prefix is written, the default stands.
        sort=None
        if e.sort is None
        else SortSpec(param=e.sort.param, fields=e.sort.fields, desc=e.sort.desc or "-"),
        write=WriteSpec(
            create=e.write.get("create", True),
            update=None if update is False else update,
            delete=e.write.get("delete", True),
            wrap=e.write.get("wrap"),
            answer=_dotted(e.write["answer"]) if "answer" in e.write else None,
            find_by=e.write.get("findBy"),
        ),
        evidence=tuple(e.evidence),
        confidence=e.confidence,
        listing=compile_listing(e.listing),
        id_client=e.id_client,
    )


def _param(name: str, claim: Claim, required: bool) -> Field:
    kind = claim.type or "json"
    string = kind == "string"
    return Field(
        name=name,
        type=FieldType(kind),
        source=_dotted(name),
        required=required,
        max=claim.max if string else None,
        values=tuple(claim.values) if kind in _ENUMS else (),
        entity=claim.entity if kind in ("ref", "list<ref>") else None,
        day_key=claim.day_key and string,
        description=_text(claim.description) if kind not in _ENUMS else None,
    )


def _operation(op: OperationDraft) -> Operation:
    return Operation(
        name=op.name,
        module=op.module,
        destructive=op.destructive,
        params=frozen({n: _param(n, c, n in op.required) for n, c in op.params.items()}),
        description=_text(op.description),
        entity=op.entity,
        read_only=op.read_only,
        idempotent=op.idempotent,
        request=Request(method=op.method, path=op.path, send=cast(_Send, op.send)),
        evidence=tuple(op.evidence),
        confidence=op.confidence,
    )


def url_template(draft: Draft) -> str:
    """``${<APP>_URL:-<the probed URL>}``: the mapping works as probed with only its
    secrets set, and the variable still moves it (the hash ignores the default)."""
    name = env_prefix(draft.app_id) + "_URL"
    url = draft.base_url
    # A URL the template grammar cannot carry stays a bare variable.
    if not url or any(c in url for c in "}$ \t\n\"'"):
        return "${" + name + "}"
    return "${" + name + ":-" + url + "}"


def build_mapping(draft: Draft) -> Mapping:
    """The draft as the runtime's frozen mapping, its content hash that of the file."""
    return built(draft)[0]


def built(draft: Draft) -> tuple[Mapping, dict[str, Any]]:
    """The draft's mapping and the document it is written as, dumped once for both."""
    up = draft.upstream
    upstream = Upstream(
        base_url=url_template(draft),
        auth=compile_auth(up.auth, str),
        headers=frozen(dict(up.headers)),
        pagination=compile_pagination(up.pagination),
        errors=ErrorStyle(up.errors),
        dialect=Dialect(up.dialect),
        item_envelope=_dotted(up.envelope.get("item")),
        write_envelope=up.envelope.get("write"),
        body_encoding="form" if up.body_encoding == "form" else "json",
        not_found_status=up.not_found_status,
    )
    mapping = Mapping(
        format=1,
        app=App(draft.app_id, draft.app_name or None, draft.app_version or None),
        upstream=upstream,
        modules=tuple(Module(name, summary or None) for name, summary in draft.modules.items()),
        entities=frozen({name: entity_model(e) for name, e in draft.entities.items()}),
        operations=tuple(_operation(op) for op in draft.operations),
        serve=Serve(),
        unmapped=tuple(Unmapped(f.path, f.reason, f.method or None) for f in draft.unmapped),
        content_hash="",
        probe=ProbeRecord(TOOL, tuple(draft.sources), tuple(draft.notes)),
    )
    # The hash is not part of the document: the one dump serves the hash and the file.
    doc = dump(mapping)
    return dataclasses.replace(mapping, content_hash=content_hash(doc)), doc


def variables(doc: AbcMapping[str, Any]) -> list[str]:
    """Every ``${VAR}`` the upstream block needs, in order of appearance."""
    text = repr(doc.get("upstream", {}))
    return list(dict.fromkeys(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text)))


def header(doc: AbcMapping[str, Any], *, schema_comment: bool = False) -> list[str]:
    lines = []
    if schema_comment:
        lines.append("yaml-language-server: $schema=./mapping.schema.json")
    return [
        *lines,
        "Written by `a2map probe` (read-only: GET, HEAD and OPTIONS only). Every decision",
        "carries its evidence; see `a2map review` for what needs a decision before serving.",
        "Environment: " + ", ".join(variables(doc)),
    ]


def document(draft: Draft) -> dict[str, Any]:
    """The draft as the mapping document the probe writes."""
    return built(draft)[1]


def render(draft: Draft, *, schema_comment: bool = False) -> str:
    """The draft as the mapping file's text."""
    doc = document(draft)
    return dump_yaml(doc, header(doc, schema_comment=schema_comment))
