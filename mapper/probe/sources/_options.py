"""Django REST Framework ``OPTIONS`` metadata -> claims.

DRF's `SimpleMetadata` describes the POST (collection) or PUT (detail) serializer:
``actions.POST.<field> = {type, required, read_only, max_length, choices, ...}``.
Related fields show up as ``type: field`` with no target, so they are only a
*related* claim here; samples and a lookup decide what they point at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._draft import Claim

# DRF's `label_lookup` names -> (protocol type, wire kind).
_TYPES: dict[str, tuple[str | None, str | None]] = {
    "string": ("string", "string"),
    "email": ("string", "string"),
    "url": ("string", "string"),
    "slug": ("string", "string"),
    "regex": ("string", "string"),
    "time": ("string", "string"),
    "integer": ("number", "integer"),
    "float": ("number", "number"),
    "decimal": ("number", "string"),
    "boolean": ("boolean", "boolean"),
    "datetime": ("datetime", "string"),
    "date": ("string", "string"),
    "choice": ("enum", None),
    "multiple choice": ("list<enum>", "array:enum"),
    "file upload": ("binary", None),
    "image upload": ("binary", None),
    "list": ("json", "array:any"),
    "nested object": ("json", "object"),
    "json": ("json", None),
    "dict": ("json", "object"),
    "hstore": ("json", "object"),
    "field": (None, None),
}


@dataclass(frozen=True, slots=True)
class OptionsView:
    """What one OPTIONS answer says: the view's name, fields and allowed methods."""

    name: str | None
    description: str | None
    fields: dict[str, Claim] = field(default_factory=dict)
    allowed: frozenset[str] = frozenset()
    drf: bool = False


def allowed_methods(header: str | None) -> frozenset[str]:
    return frozenset(m.strip().upper() for m in (header or "").split(",") if m.strip())


def _claim(meta: Mapping[str, Any]) -> Claim:
    label = str(meta.get("type", ""))
    kind, wire = _TYPES.get(label, ("json", None))
    base: dict[str, Any] = {
        "source": "options",
        "required": bool(meta.get("required")),
        "read_only": bool(meta.get("read_only")),
        "description": meta.get("help_text") or None,
        "detail": label,
    }
    if label == "field":
        return Claim(related=True, **base)
    if kind in ("enum", "list<enum>"):
        values = tuple(c.get("value") for c in meta.get("choices") or [] if isinstance(c, Mapping))
        values = tuple(v for v in values if v not in (None, ""))
        if not values:
            return Claim(type="string" if kind == "enum" else "json", wire=wire, **base)
        return Claim(type=kind, values=values, wire=wire, **base)
    max_length = meta.get("max_length")
    size = max_length if isinstance(max_length, int) and kind == "string" else None
    if label == "date":
        return Claim(type="string", day_key=True, max=10, wire=wire, **base)
    return Claim(type=kind, max=size, wire=wire, **base)


def read_options(body: Any, allow: str | None) -> OptionsView | None:
    """The view described by an OPTIONS answer, or None when it is not DRF metadata."""
    if not isinstance(body, Mapping) or not ({"renders", "parses"} & body.keys()):
        return None
    actions = body.get("actions")
    described: Mapping[str, Any] = {}
    if isinstance(actions, Mapping):
        chosen = actions.get("POST") or actions.get("PUT") or {}
        described = chosen if isinstance(chosen, Mapping) else {}
    fields = {
        str(name): _claim(meta) for name, meta in described.items() if isinstance(meta, Mapping)
    }
    return OptionsView(
        name=str(body["name"]) if body.get("name") else None,
        description=str(body["description"]) if body.get("description") else None,
        fields=fields,
        allowed=allowed_methods(allow),
        drf=True,
    )
