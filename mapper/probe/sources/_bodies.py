"""Request bodies the runtime can send: JSON, or a url-encoded form (one per mapping).

A form body that declares no field at all (Stripe puts one on every GET and
DELETE) carries nothing, so it is no body. A url-encoded form with fields is sent
as one (``upstream.bodyEncoding: form``) when the spec's writes take forms and
none takes JSON; a spec mixing both keeps its JSON writes and reports the forms.
A multipart form is a file upload: it is never sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._schema import Resolver, SchemaProblem, flatten

FORM_MEDIA = ("application/x-www-form-urlencoded", "multipart/form-data")
MULTIPART = "multipart/form-data"
FORM_BODY = "the operation takes a form body, and the upstream's other writes take JSON"
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


def form_schema(content: Mapping[str, Any]) -> tuple[str | None, Any]:
    """(``form``, ``multipart`` or None, the form's schema) for a request body's ``content``."""
    for media, entry in content.items():
        if str(media).lower() in FORM_MEDIA:
            kind = "multipart" if str(media).lower() == MULTIPART else "form"
            return kind, entry.get("schema") if isinstance(entry, Mapping) else None
    return None, None


def body_encoding(kinds: Iterable[str]) -> str:
    """``form`` when the writes take url-encoded forms and none takes JSON, else ``json``."""
    seen = set(kinds)
    return "form" if "form" in seen and "json" not in seen else "json"


def sendable(kind: str, encoding: str) -> bool:
    """Whether a request body of this kind can be sent under the upstream's encoding."""
    return kind in SENDABLE or (kind == "form" and encoding == "form")
