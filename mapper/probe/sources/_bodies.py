"""Request bodies the runtime can send: it writes JSON only.

A form body that declares no field at all (Stripe puts one on every GET and
DELETE) carries nothing, so it is no body; a form with fields cannot be sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._schema import Resolver, SchemaProblem, flatten

FORM_MEDIA = ("application/x-www-form-urlencoded", "multipart/form-data")
FORM_BODY = "the operation takes a form body; the runtime writes JSON only"
# Request kinds the runtime can send: a JSON body, or none.
SENDABLE = frozenset({"json", "none"})


def declares_no_field(schema: Any, resolver: Resolver) -> bool:
    """True for an object schema without properties that admits no others either."""
    if schema is None:
        return False
    try:
        flat, _, _ = flatten(schema, resolver)
    except SchemaProblem:
        return False
    if flat.get("type") not in (None, "object") or flat.get("properties"):
        return False
    return flat.get("additionalProperties") in (None, False)


def form_schema(content: Mapping[str, Any]) -> tuple[bool, Any]:
    """(is a form, the form's schema) for a request body's ``content``."""
    for media, entry in content.items():
        if str(media).lower() in FORM_MEDIA:
            return True, entry.get("schema") if isinstance(entry, Mapping) else None
    return False, None
