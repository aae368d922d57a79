"""Navigational describe: six levels, each within 2,000 characters (protocol §6).

Pure functions over the compiled mapping and the caller; the routes fetch any
stored record first and pass it in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Mapping as AbcMapping
from typing import Any

from runtime.mapping import READ_ONLY, Entity, Mapping, Operation

from ._access import Caller, module_access
from ._fingerprint import field_doc
from ._jsjson import compact_json, js_length, js_string
from ._predicates import evaluate

BUDGET_CHARS = 2000

DEFAULT_CONVENTIONS: dict[str, str] = {
    "writes": "Prefer a declared operation to a raw record write when one fits.",
    "labels": (
        "Resolve a label to an id with a filtered read on the label field; "
        "on several matches ask or fail, never pick one."
    ),
    "dates": "Relative words are rejected; resolve dates to ISO-8601 on the client.",
    "honesty": "When the app cannot express a request, say so rather than approximating.",
}


def _fits(doc: dict[str, Any]) -> bool:
    return js_length(compact_json(doc)) <= BUDGET_CHARS


def _trim(
    build: Callable[[int], dict[str, Any]], total: int, more: str, show_all: bool
) -> dict[str, Any]:
    """Largest prefix of a list that fits, by binary search; never silent."""
    doc = build(total)
    if show_all or _fits(doc):
        return doc
    low, high = 0, total
    while low < high:
        mid = (low + high + 1) // 2
        if _fits(_mark(build(mid), total - mid, more)):
            low = mid
        else:
            high = mid - 1
    return _mark(build(low), total - low, more)


def _mark(doc: dict[str, Any], dropped: int, more: str) -> dict[str, Any]:
    if dropped > 0:
        doc["next"] = [*doc["next"], more]
        doc["truncated"] = dropped
    return doc


def root(mapping: Mapping, caller: Caller, *, show_all: bool = False) -> dict[str, Any]:
    rows = []
    for module in mapping.modules:
        row: dict[str, Any] = {
            "name": module.name,
            "entities": len(mapping.entities_in(module.name)),
            "operations": len(mapping.operations_in(module.name)),
            "access": module_access(mapping, module.name, caller),
        }
        if module.summary:
            row["summary"] = module.summary
        rows.append(row)
    conventions = {**DEFAULT_CONVENTIONS, **mapping.serve.conventions}

    def build(count: int, summaries: bool = True) -> dict[str, Any]:
        kept = (
            rows[:count]
            if summaries
            else [{k: v for k, v in r.items() if k != "summary"} for r in rows[:count]]
        )
        return {
            "level": "root",
            "app": {"id": mapping.app.id, "name": mapping.app.name},
            "modules": kept,
            "conventions": conventions,
            "next": ["describe/{module}", "describe?find={term}"],
        }

    if show_all or _fits(build(len(rows))):
        return build(len(rows))
    return _trim(lambda n: build(n, summaries=False), len(rows), "describe?all=true", False)


def _op_row(op: Operation) -> dict[str, Any]:
    row: dict[str, Any] = {"name": op.name, "destructive": op.destructive}
    if op.description:
        row["summary"] = op.description
    return row


def module(
    mapping: Mapping, name: str, caller: Caller, *, show_all: bool = False
) -> dict[str, Any]:
    mod = mapping.module(name)
    assert mod is not None
    entities = [
        {"name": e.name, **({"summary": e.summary} if e.summary else {})}
        for e in mapping.entities_in(name)
        if caller.can_read(e.name)
    ]
    operations = [
        _op_row(op)
        for op in mapping.operations_in(name)
        if op.entity is None and caller.can_run(op.name)
    ]
    nxt = [f"describe/{name}/{{entity}}"]
    if operations:
        nxt.append(f"{name} <operation> [--params]")

    def build(count: int) -> dict[str, Any]:
        doc: dict[str, Any] = {"level": "module", "path": name}
        if mod.summary:
            doc["summary"] = mod.summary
        doc.update({"entities": entities[:count], "operations": operations, "next": list(nxt)})
        return doc

    return _trim(build, len(entities), f"describe/{name}?all=true", show_all)


def operation_doc(op: Operation) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": op.name,
        "destructive": op.destructive,
        "params": {n: field_doc(p, param=True) for n, p in op.params.items()},
    }
    if op.description:
        doc["description"] = op.description
    if op.read_only:
        doc[READ_ONLY] = True
    if op.idempotent:
        doc["idempotent"] = True
    if op.entity is not None:
        doc["entity"] = op.entity
    return doc


def entity_ops(mapping: Mapping, entity: Entity, caller: Caller) -> list[Operation]:
    return [op for op in mapping.operations if op.entity == entity.name and caller.can_run(op.name)]


def entity(
    mapping: Mapping, ent: Entity, caller: Caller, *, show_all: bool = False
) -> dict[str, Any]:
    path = f"{ent.module}/{ent.name}"
    fields = {f.name: field_doc(f) for f in ent.fields.values() if not f.write_only}
    ops = [operation_doc(op) for op in entity_ops(mapping, ent, caller)]

    def build(count: int) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "level": "entity",
            "path": path,
            "label": ent.label,
            "records": f"/api/collections/{ent.name}/records",
        }
        if ent.auth:
            doc["auth"] = True
        if ent.id_client:
            doc["id"] = CLIENT_ID  # a create must carry the new record's id
        doc.update(
            {
                "fields": fields,
                "operations": ops[:count],
                "next": [f"describe/{path}/{{id}}", f"data {ent.name} list"],
            }
        )
        return doc

    return _trim(build, len(ops), f"describe/{path}?all=true", show_all)


def label_of(ent: Entity, record: AbcMapping[str, Any]) -> str | None:
    if ent.label is None:
        return None
    value = record.get(ent.label)
    if value is None:
        return None
    return value if isinstance(value, str) else js_string(value)


def record(
    mapping: Mapping, ent: Entity, caller: Caller, rec: AbcMapping[str, Any]
) -> dict[str, Any]:
    record_id = str(rec["id"])
    path = f"{ent.module}/{ent.name}/{record_id}"
    ops = []
    available_ops = []
    for op in entity_ops(mapping, ent, caller):
        row: dict[str, Any] = {"name": op.name}
        blocked = evaluate(op.applies_when, ent, rec) if op.applies_when is not None else None
        row["available"] = blocked is None
        if op.destructive:
            row["destructive"] = True
        if blocked is not None:
            row["blocked"] = blocked
        else:
            available_ops.append(op.name)
        ops.append(row)
    relations = []
    for f in ent.fields.values():
        if f.type == "list<ref>" and f.entity is not None and not f.write_only:
            rel: dict[str, Any] = {"name": f.name, "entity": f.entity}
            value = rec.get(f.name)
            if isinstance(value, list):
                rel["count"] = len(value)
            relations.append(rel)
    doc: dict[str, Any] = {
        "level": "record",
        "path": path,
        "id": record_id,
        "label": label_of(ent, rec),
        "operations": ops,
    }
    if relations:
        doc["relations"] = relations
    doc["next"] = (
        [f"describe/{path}/{r['name']}" for r in relations]
        + [f"{path} {name}" for name in available_ops]
        + [f"data {ent.name} get {record_id}"]
    )
    return doc


def relation_names(ent: Entity) -> list[str]:
    return [
        f.name
        for f in ent.fields.values()
        if f.type == "list<ref>" and f.entity is not None and not f.write_only
    ]


def relation(
    ent: Entity,
    record_id: str,
    name: str,
    target: str,
    items: Sequence[dict[str, Any]],
    *,
    show_all: bool = False,
) -> dict[str, Any]:
    path = f"{ent.module}/{ent.name}/{record_id}/{name}"

    def build(count: int) -> dict[str, Any]:
        return {
            "level": "relation",
            "path": path,
            "entity": target,
            "items": list(items[:count]),
            "next": [f"data {target} get {{id}}", f"describe/{ent.module}/{ent.name}/{record_id}"],
        }

    return _trim(build, len(items), f"describe/{path}?all=true", show_all)


def find(mapping: Mapping, term: str, caller: Caller, *, show_all: bool = False) -> dict[str, Any]:
    needle = term.lower()
    matches: list[dict[str, Any]] = [
        {"path": m.name, "level": "module"} for m in mapping.modules if needle in m.name.lower()
    ]
    matches += [
        {"path": f"{e.module}/{e.name}", "level": "entity"}
        for e in mapping.entities.values()
        if needle in e.name.lower() and caller.can_read(e.name)
    ]
    matches += [
        {"path": f"{op.module}/{op.entity}" if op.entity else op.module, "operation": op.name}
        for op in mapping.operations
        if needle in op.name.lower() and caller.can_run(op.name)
    ]

    def build(count: int) -> dict[str, Any]:
        return {
            "level": "find",
            "term": term,
            "matches": matches[:count],
            "next": ["describe/{path}"],
        }

    return _trim(build, len(matches), f"describe?find={term}&all=true", show_all)


# How describe shows an entity whose ids the client chooses (extension 18).
CLIENT_ID = {"type": "string", "required": True, "chosenBy": "client"}


def flat(mapping: Mapping, caller: Caller) -> dict[str, Any]:
    """The older protocol's whole-model document, for clients that still ask for it."""
    return {
        "a2app": True,
        "app": {"id": mapping.app.id, "name": mapping.app.name},
        "modules": [
            {"name": m.name, **({"summary": m.summary} if m.summary else {})}
            for m in mapping.modules
        ],
        "entities": [
            {
                "name": e.name,
                "module": e.module,
                "label": e.label,
                "records": f"/api/collections/{e.name}/records",
                **({"id": CLIENT_ID} if e.id_client else {}),
                "fields": {f.name: field_doc(f) for f in e.fields.values() if not f.write_only},
                "access": {"read": caller.can_read(e.name), "write": caller.can_write(e.name)},
            }
            for e in mapping.entities.values()
        ],
        "operations": [
            {**operation_doc(op), "module": op.module, "runnable": caller.can_run(op.name)}
            for op in mapping.operations
        ],
        "conventions": {**DEFAULT_CONVENTIONS, **mapping.serve.conventions},
    }
