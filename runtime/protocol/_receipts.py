"""Receipts: one sentence about a write, generated from the STORED record, never the request."""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from collections.abc import Sequence
from typing import Any

from runtime.mapping import Entity

from ._guard import is_blank
from ._jsjson import js_string

MAX_FIELDS = 4
MAX_VALUE_CHARS = 60


def singular(name: str) -> str:
    if name.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if name.endswith(("ses", "xes", "zes", "ches", "shes")):
        return name[:-2]
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name


def _value(value: Any, ref_labels: AbcMapping[str, str | None]) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v, ref_labels) for v in value) or "none"
    text = js_string(value)
    if text in ref_labels:
        label = ref_labels[text]
        return f'"{label}"' if label is not None else text
    if isinstance(value, str):
        text = text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"
    return text


def record_receipt(
    verb: str,
    entity: Entity,
    record: AbcMapping[str, Any],
    shown: Sequence[str],
    ref_labels: AbcMapping[str, str | None],
) -> str:
    """`Created card "Buy milk": priority high, list "To Do".`"""
    label = record.get(entity.label) if entity.label else None
    name = f'"{js_string(label)}"' if not is_blank(label) else str(record.get("id"))
    parts = []
    for field_name in shown:
        field = entity.fields.get(field_name)
        if field is None or field.read_only or field.write_only or field_name == entity.label:
            continue
        value = record.get(field_name)
        parts.append(f"{field_name} {'cleared' if is_blank(value) else _value(value, ref_labels)}")
        if len(parts) == MAX_FIELDS:
            break
    detail = f": {', '.join(parts)}" if parts else ""
    return f"{verb} {singular(entity.name)} {name}{detail}."


def operation_receipt(name: str, target: tuple[Entity, AbcMapping[str, Any]] | None) -> str:
    if target is None:
        return f"Ran {name}."
    entity, record = target
    label = record.get(entity.label) if entity.label else None
    shown = f'"{js_string(label)}"' if not is_blank(label) else str(record.get("id"))
    return f"Ran {name} on {singular(entity.name)} {shown}."
