"""Live list answers: where the records sit, and what their values say per field.

Envelopes seen in the wild: a bare array (Rails, json-server), DRF's
``{count, next, previous, results}``, PocketBase's ``{page, perPage,
totalItems, items}``, JSON:API's ``{data: [{type, id, attributes,
relationships}], links, meta}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._draft import Claim
from ._values import sample_claim

ITEM_KEYS = ("results", "data", "items", "records", "entries", "rows", "objects", "content", "hits")
TOTAL_KEYS = (
    "count", "total", "totalItems", "total_count", "totalCount", "total_results",
    "meta.total", "meta.count", "meta.total_count", "meta.totalItems", "pagination.total",
)  # fmt: skip
NEXT_KEYS = (
    "next", "links.next", "next_page_url", "nextPageUrl", "meta.next", "pagination.next",
    "next_cursor", "nextCursor", "meta.next_cursor",
)  # fmt: skip
_MISSING = object()


def dig(body: Any, dotted: str) -> Any:
    node = body
    for part in dotted.split(".") if dotted else []:
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


@dataclass(frozen=True, slots=True)
class Envelope:
    items: str  # dotted path of the records; "" for a bare array
    total: str | None = None
    next: str | None = None
    jsonapi: bool = False
    keys: tuple[str, ...] = ()


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, Mapping) for v in value)


def envelope_of(body: Any, content_type: str = "") -> Envelope | None:
    """Where a list answer keeps its records, or None when it is not a list answer."""
    if _is_records(body):
        return Envelope("")
    if not isinstance(body, Mapping):
        return None
    keys = tuple(str(k) for k in body)
    items = next((k for k in ITEM_KEYS if _is_records(body.get(k))), None)
    if items is None:
        arrays = [k for k in keys if _is_records(body[k]) and body[k]]
        if len(arrays) != 1:
            return None
        items = arrays[0]
    total = next((k for k in TOTAL_KEYS if isinstance(dig(body, k), int)), None)
    nxt = next((k for k in NEXT_KEYS if dig(body, k) is not _MISSING), None)
    records = body[items]
    jsonapi = "vnd.api+json" in content_type or (
        items == "data"
        and bool(records)
        # JSON:API's attributes are an object; Stripe's products carry a list of that name.
        and all(_jsonapi_resource(r) for r in records)
    )
    return Envelope(items, total, nxt, jsonapi, keys)


def _jsonapi_resource(record: Mapping[str, Any]) -> bool:
    return {"type", "id"} <= record.keys() and isinstance(record.get("attributes"), Mapping)


def records_of(body: Any, envelope: Envelope) -> list[Mapping[str, Any]]:
    found = dig(body, envelope.items)
    return list(found) if _is_records(found) else []


def flatten_record(record: Mapping[str, Any], jsonapi: bool) -> dict[str, Any]:
    """Source path -> value; JSON:API attributes and to-one relationships are dotted."""
    if not jsonapi:
        return {str(k): v for k, v in record.items()}
    out: dict[str, Any] = {"id": record.get("id")}
    attributes = record.get("attributes")
    for key, value in (attributes or {}).items() if isinstance(attributes, Mapping) else ():
        out[f"attributes.{key}"] = value
    relationships = record.get("relationships")
    if isinstance(relationships, Mapping):
        for key, rel in relationships.items():
            data = rel.get("data", _MISSING) if isinstance(rel, Mapping) else _MISSING
            if data is _MISSING:
                continue
            if isinstance(data, list):
                out[f"relationships.{key}.data"] = data
            else:
                out[f"relationships.{key}.data.id"] = (
                    data.get("id") if isinstance(data, Mapping) else None
                )
    return out


def jsonapi_targets(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Source path -> the JSON:API ``type`` its relationship names (an explicit ref)."""
    out: dict[str, str] = {}
    for record in records:
        for key, rel in (record.get("relationships") or {}).items():
            data = rel.get("data") if isinstance(rel, Mapping) else None
            items = data if isinstance(data, list) else [data]
            for item in items:
                if isinstance(item, Mapping) and isinstance(item.get("type"), str):
                    path = f"relationships.{key}.data" + ("" if isinstance(data, list) else ".id")
                    out.setdefault(path, item["type"])
    return out


def sample_claims(records: Sequence[Mapping[str, Any]], jsonapi: bool) -> dict[str, Claim]:
    """One claim per source path, in order of first appearance; all-null paths omitted."""
    flat = [flatten_record(r, jsonapi) for r in records]
    order: dict[str, None] = {}
    for row in flat:
        order.update(dict.fromkeys(row))
    claims: dict[str, Claim] = {}
    for path in order:
        claim = sample_claim([row.get(path) for row in flat])
        if claim is not None:
            claims[path] = claim
    return claims


def values_at(records: Sequence[Mapping[str, Any]], path: str, jsonapi: bool) -> list[Any]:
    return [flatten_record(r, jsonapi).get(path) for r in records]
