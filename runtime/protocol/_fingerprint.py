"""`schemaVersion`: a fingerprint of everything describe publishes (protocol §19.1)."""

from __future__ import annotations

from typing import Any

from runtime.mapping import READ_ONLY, Field, Mapping, Operation, dump_predicate

from ._jsjson import js_number, stable_json


def field_doc(f: Field, *, param: bool = False) -> dict[str, Any]:
    """The protocol's attribute set of a field or param: only attributes that are set."""
    doc: dict[str, Any] = {"type": f.type}
    if f.required:
        doc["required"] = True
    if f.read_only and not param:
        doc[READ_ONLY] = True
    if f.max is not None:
        doc["max"] = f.max
    if f.values:
        doc["values"] = list(f.values)
    if f.entity is not None:
        doc["entity"] = f.entity
    if f.day_key:
        doc["format"] = "YYYY-MM-DD"
    if param and f.description:
        doc["description"] = f.description
    return doc


def _field_part(f: Field) -> str:
    parts = [f.name, f.type]
    if f.required:
        parts.append("req")
    if f.read_only:
        parts.append("ro")
    if f.write_only:
        parts.append("wo")
    if f.day_key:
        parts.append("day")
    if f.max is not None:
        parts.append(f"max={js_number(f.max)}")
    if f.entity is not None:
        parts.append(f"entity={f.entity}")
    if f.values:
        parts.append("values=" + "|".join(sorted(_value_text(v) for v in f.values)))
    return ":".join(parts)


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    return str(value)


def _operation_part(op: Operation) -> str:
    flags = (
        ("d" if op.destructive else "")
        + ("r" if op.read_only else "")
        + ("i" if op.idempotent else "")
    )
    parts = [f"{op.name}:{flags}" if flags else op.name, f"mod={op.module}"]
    if op.entity is not None:
        parts.append(f"on={op.entity}")
    if op.params:
        parts.append(
            "params=" + stable_json({n: field_doc(p, param=True) for n, p in op.params.items()})
        )
    if op.applies_when is not None:
        parts.append("when=" + stable_json(dump_predicate(op.applies_when)))
    return ":".join(parts)


def fingerprint_input(mapping: Mapping) -> str:
    entities = []
    for entity in mapping.entities.values():
        fields = ",".join(sorted(_field_part(f) for f in entity.fields.values()))
        text = f"{entity.name}({fields})"
        if entity.auth:
            text += ":auth"
        if entity.id_client:
            text += ":clientid"  # creates must carry the id: the write contract differs
        entities.append(f"{text}:mod={entity.module}")
    operations = sorted(_operation_part(op) for op in mapping.operations)
    return ";".join(sorted(entities)) + "|" + ",".join(operations)


def schema_version(mapping: Mapping) -> str:
    h = 5381
    data = fingerprint_input(mapping).encode("utf-16-le")
    for i in range(0, len(data), 2):
        unit = data[i] | (data[i + 1] << 8)
        h = ((h * 33) ^ unit) & 0xFFFFFFFF
    return f"sv_{h:x}"
