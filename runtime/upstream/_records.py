"""Foreign records to protocol records and back, driven by each field's ``source`` path.

Ids travel as strings on the protocol side (refs are foreign ids); numbers stay
numbers; a field the upstream did not send reads as null, and so does ``""`` where
the type has no empty text (PocketBase's unset select, relation, date); a day key
stored as a datetime at midnight UTC reads as its day.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from runtime.mapping import Entity, Field, decode_value, encode_value

from ._translate import shape_error

_INTEGER = re.compile(r"-?\d+")
# Types without an empty text: an upstream that stores "" for "unset" (PocketBase's
# select, relation and date fields) means null.
_BLANK_IS_NULL = frozenset({"number", "boolean", "datetime", "enum", "ref"})
# A day stored as a datetime at midnight UTC (PocketBase's date field): its day.
_MIDNIGHT = re.compile(r"(\d{4}-\d{2}-\d{2})[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?")


def dig(data: Any, path: tuple[str, ...], default: Any = None) -> Any:
    """The value at a dotted path; `default` when any step is missing."""
    for part in path:
        if isinstance(data, Mapping) and part in data:
            data = data[part]
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return default
    return data


def put(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set a value at a path, creating the nested objects on the way."""
    for part in path[:-1]:
        inner = data.get(part)
        if not isinstance(inner, dict):
            inner = data[part] = {}
        data = inner
    data[path[-1]] = value


def id_text(value: Any) -> str | None:
    """A foreign id as the protocol's string; None when it is no usable id."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    if isinstance(value, str) and value != "":
        return value
    return None


def _ref(value: Any) -> str | None:
    # Embedded forms: {"id": …} (nested serializers), {"data": {"id": …}} (JSON:API).
    if isinstance(value, Mapping):
        value = value.get("id", dig(value, ("data", "id")))
    return id_text(value)


def _number(value: Any) -> Any:
    # DRF renders decimals as strings ("12.50"); the protocol's number is a number.
    if not isinstance(value, str):
        return value
    text = value.strip()
    if _INTEGER.fullmatch(text):
        return int(text)  # exact, where a float would round large integers
    try:
        number = float(text)
    except ValueError:
        return value
    if not math.isfinite(number):
        return value
    return int(number) if number.is_integer() else number


def _read(field: Field, value: Any) -> Any:
    if value is None:
        return None
    value = decode_value(field.codec, value)
    if value == "" and (field.day_key or field.type in _BLANK_IS_NULL) and "" not in field.values:
        return None
    if field.day_key and isinstance(value, str) and (midnight := _MIDNIGHT.fullmatch(value)):
        return midnight.group(1)
    if field.type == "ref":
        return _ref(value)
    if field.type == "list<ref>":
        if not isinstance(value, list):
            value = dig(value, ("data",)) if isinstance(value, Mapping) else [value]
        return [ref for ref in map(_ref, value or []) if ref is not None]
    if field.type == "number":
        return _number(value)
    return value


def to_protocol(entity: Entity, raw: Mapping[str, Any]) -> dict[str, Any]:
    """A foreign record as the protocol shows it: ``id`` first, then every declared field
    but the write-only ones, which describe never lists and no read returns."""
    if not isinstance(raw, Mapping):
        raise shape_error(f"a {type(raw).__name__} where a {entity.name} record was expected")
    ident = id_text(dig(raw, entity.id_source))
    if ident is None:
        raise shape_error(f"a {entity.name} record without a usable id")
    record: dict[str, Any] = {"id": ident}
    for field in entity.fields.values():
        if not field.write_only:
            record[field.name] = _read(field, dig(raw, field.source))
    return record


def _ref_out(value: Any, id_type: str) -> Any:
    if id_type == "integer" and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def to_upstream(
    entity: Entity,
    body: Mapping[str, Any],
    *,
    envelope: str | None = None,
    id_types: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A protocol write body in the upstream's shape: renamed, nested, wrapped.

    Each value goes where the field is written (``writeSource``), which may differ
    from where it is read (a ref read from ``priority.id``, written as ``priority_id``).

    The entity's ``write.wrap`` wins over the upstream-wide `envelope`.
    `id_types` (entity name → ``string``/``integer``) lets refs to integer-keyed
    entities go out as numbers, which schemaless upstreams compare strictly.
    """
    out: dict[str, Any] = {}
    for name, value in body.items():
        if name == "id" and entity.id_client:
            put(out, entity.id_source, _ref_out(value, entity.id_type))  # chosen by the client
            continue
        field = entity.fields.get(name)
        if field is None or field.read_only:
            continue  # only declared, writable fields ever reach the upstream
        if field.is_ref and value is not None:
            id_type = (id_types or {}).get(field.entity or "", "string")
            if field.type == "list<ref>" and isinstance(value, list):
                value = [_ref_out(v, id_type) for v in value]
            else:
                value = _ref_out(value, id_type)
        put(out, field.written_at, encode_value(field.codec, value))
    wrap = write_wrap(entity, envelope)
    if wrap:
        wrapped: dict[str, Any] = {}
        put(wrapped, wrap, out)
        return wrapped
    return out


def write_wrap(entity: Entity, envelope: str | None) -> tuple[str, ...]:
    """Where write bodies are wrapped, so the upstream's errors can be unwrapped."""
    wrap = entity.write.wrap or envelope
    return tuple(part for part in (wrap or "").split(".") if part)
