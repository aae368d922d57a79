"""The draft as a mapping document: stable order, no record values, no times.

Evidence items are plain source names when the source simply agrees, and
``{source, detail}`` when it said something specific (a lookup route, a
refinement, a disagreement). The upstream URL is ``${<APP>_URL}``.
"""

from __future__ import annotations

import re
from typing import Any

from runtime.mapping import FILTER_OPERATORS

from ._draft import Claim, Draft, EntityDraft, Ev, FieldDraft, OperationDraft
from ._naming import env_prefix
from ._yaml import dump

TOOL = "a2map probe"
_WRITE_DEFAULTS = {"create": True, "update": "PATCH", "delete": True}
_PAGINATION_ORDER = (
    "style", "page", "size", "offset", "cursor", "items", "total", "totalHeader", "next",
    "nextFrom", "more", "maxSize", "firstPage",
)  # fmt: skip


def _evidence(items: list[Ev] | tuple[Ev, ...]) -> list[Any]:
    return [e.source if e.detail is None else {"source": e.source, "detail": e.detail}
            for e in items]  # fmt: skip


def _field(f: FieldDraft) -> dict[str, Any]:
    doc: dict[str, Any] = {"type": f.type}
    if f.source != f.name:
        doc["source"] = f.source
    if f.required:
        doc["required"] = True
    if f.read_only:
        doc["readOnly"] = True
    if f.write_only:
        doc["writeOnly"] = True
    if f.nullable is False:
        doc["nullable"] = False
    if f.max is not None and f.type == "string":
        doc["max"] = f.max
    if f.values and f.type in ("enum", "list<enum>"):
        doc["values"] = list(f.values)
        if not f.values_closed:
            doc["valuesClosed"] = False
    if f.entity is not None:
        doc["entity"] = f.entity
    if f.day_key and f.type == "string":
        doc["format"] = "YYYY-MM-DD"
    if f.upstream_on_delete is not None:
        doc["upstreamOnDelete"] = f.upstream_on_delete
    if f.description:
        doc["description"] = " ".join(f.description.split())
    doc["evidence"] = _evidence(f.evidence)
    doc["confidence"] = f.confidence
    if f.notes:
        doc["note"] = "; ".join(dict.fromkeys(f.notes))
    return doc


def label_of(fields: dict[str, FieldDraft]) -> str | None:
    """The protocol's rule: title, name or label, else the first required writable string."""
    for name in ("title", "name", "label"):
        if name in fields and not fields[name].write_only:
            return name
    return next(
        (f.name for f in fields.values() if f.type == "string" and f.required and not f.read_only),
        None,
    )


def _entity(e: EntityDraft) -> dict[str, Any]:
    doc: dict[str, Any] = {"module": e.module}
    if e.summary:
        doc["summary"] = " ".join(e.summary.split())
    doc["path"] = e.path
    default = e.path.rstrip("/") + "/{id}" + ("/" if e.path.endswith("/") else "")
    if e.detail_path and e.detail_path != default:
        doc["detailPath"] = e.detail_path
    doc["id"] = {"source": e.id_source, "type": e.id_type}
    label = label_of(e.fields)
    if label is not None:
        doc["label"] = label
    doc["fields"] = {name: _field(f) for name, f in e.fields.items()}
    if e.filters:
        order = ["id", *e.fields]
        doc["filter"] = {
            name: {
                op: {"param": ops[op].param, "evidence": _evidence(ops[op].evidence)}
                for op in FILTER_OPERATORS
                if op in ops
            }
            for name, ops in sorted(e.filters.items(), key=lambda kv: order.index(kv[0]))
        }
    if e.sort is not None:
        desc = {"desc": e.sort.desc} if e.sort.desc else {}  # json-server orders with _order
        doc["sort"] = {"param": e.sort.param, **desc, "fields": list(e.sort.fields)}
    write = {k: v for k, v in e.write.items() if _WRITE_DEFAULTS.get(k) != v}
    if write:
        doc["write"] = write
    doc["evidence"] = _evidence(e.evidence)
    doc["confidence"] = e.confidence
    return doc


def _param(claim: Claim, required: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"type": claim.type or "json"}
    if required:
        doc["required"] = True
    if claim.max is not None and claim.type == "string":
        doc["max"] = claim.max
    if claim.values and claim.type in ("enum", "list<enum>"):
        doc["values"] = list(claim.values)
    if claim.entity is not None and claim.type in ("ref", "list<ref>"):
        doc["entity"] = claim.entity
    if claim.day_key and claim.type == "string":
        doc["format"] = "YYYY-MM-DD"
    if claim.description and claim.type not in ("enum", "list<enum>"):
        doc["description"] = " ".join(claim.description.split())
    return doc


def _operation(op: OperationDraft) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": op.name}
    if op.description:
        doc["description"] = " ".join(op.description.split())
    doc["module"] = op.module
    if op.entity is not None:
        doc["entity"] = op.entity
    doc["destructive"] = op.destructive
    if op.read_only:
        doc["readOnly"] = True
    if op.idempotent:
        doc["idempotent"] = True
    doc["params"] = {n: _param(c, n in op.required) for n, c in op.params.items()}
    doc["request"] = {"method": op.method, "path": op.path, "send": op.send}
    doc["evidence"] = _evidence(op.evidence)
    doc["confidence"] = op.confidence
    return doc


def document(draft: Draft) -> dict[str, Any]:
    app: dict[str, Any] = {"id": draft.app_id}
    if draft.app_name:
        app["name"] = draft.app_name
    if draft.app_version:
        app["version"] = draft.app_version
    up = draft.upstream
    upstream: dict[str, Any] = {"baseUrl": "${" + env_prefix(draft.app_id) + "_URL}"}
    upstream["auth"] = up.auth
    if up.headers:
        upstream["headers"] = up.headers
    upstream["pagination"] = {k: up.pagination[k] for k in _PAGINATION_ORDER if k in up.pagination}
    upstream["errors"] = up.errors
    upstream["dialect"] = up.dialect
    if up.envelope:
        upstream["envelope"] = up.envelope
    doc: dict[str, Any] = {"format": 1, "app": app, "upstream": upstream}
    doc["modules"] = [
        {"name": name, **({"summary": summary} if summary else {})}
        for name, summary in draft.modules.items()
    ]
    doc["entities"] = {name: _entity(e) for name, e in draft.entities.items()}
    if draft.operations:
        doc["operations"] = [_operation(op) for op in draft.operations]
    if draft.unmapped:
        doc["unmapped"] = [
            {"path": f.path, **({"method": f.method} if f.method else {}), "reason": f.reason}
            for f in draft.unmapped
        ]
    doc["probe"] = {"tool": TOOL, "sources": list(draft.sources), "notes": list(draft.notes)}
    return doc


def variables(doc: dict[str, Any]) -> list[str]:
    """Every ``${VAR}`` the upstream block needs, in order of appearance."""
    text = repr(doc.get("upstream", {}))
    return list(dict.fromkeys(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text)))


def render(draft: Draft, *, schema_comment: bool = False) -> str:
    doc = document(draft)
    header = []
    if schema_comment:
        header.append("yaml-language-server: $schema=./mapping.schema.json")
    header += [
        "Written by `a2map probe` (read-only: GET, HEAD and OPTIONS only). Every decision",
        "carries its evidence; see `a2map review` for what needs a decision before serving.",
        "Environment: " + ", ".join(variables(doc)),
    ]
    return dump(doc, header)
