"""Upstream-wide behaviours: credentials, error dialect, filter dialect.

Each decision comes back with a note naming its evidence, since the mapping
format has no evidence slot under ``upstream``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from .._auth import HeaderArg, SecurityScheme, auth_from_headers, auth_from_spec

if TYPE_CHECKING:
    from ..live import Exchange
    from ._observe import Observation

_DJANGO_LOOKUPS = ("__icontains", "__exact", "__gte", "__lte", "__gt", "__lt", "__in", "__isnull")


def credentials(
    headers: Sequence[HeaderArg],
    schemes: Mapping[str, SecurityScheme],
    preferred: Sequence[str],
    prefix: str,
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """``upstream.auth`` and ``upstream.headers``: the given headers, else the spec's scheme."""
    if headers:
        return auth_from_headers(headers, prefix)
    for key in [*preferred, *sorted(schemes)]:
        scheme = schemes.get(key)
        auth = auth_from_spec(scheme, prefix) if scheme is not None else None
        if auth is not None:
            note = f"upstream.auth: {auth['type']} (spec: security scheme {key})"
            return auth, {}, [note]
    return {"type": "none"}, {}, ["upstream.auth: none (no credentials given or declared)"]


def _drf_error(answer: Exchange | None) -> bool:
    body = answer.body if answer is not None else None
    return isinstance(body, Mapping) and isinstance(body.get("detail"), str) and len(body) == 1


def _graphql_error(answer: Exchange | None) -> bool:
    """``{errors: [{message, extensions}]}``: errors as GraphQL spells them."""
    body = answer.body if answer is not None else None
    errors = body.get("errors") if isinstance(body, Mapping) else None
    return isinstance(errors, list) and bool(errors) and all(
        isinstance(e, Mapping) and isinstance(e.get("message"), str)
        and isinstance(e.get("extensions"), Mapping) for e in errors
    )  # fmt: skip


def _error_object(answer: Exchange | None) -> bool:
    """``{error: {type, message, ...}}``: one error object, as Stripe spells errors."""
    body = answer.body if answer is not None else None
    error = body.get("error") if isinstance(body, Mapping) and len(body) == 1 else None
    return isinstance(error, Mapping) and all(
        isinstance(error.get(k), str) for k in ("type", "message")
    )


def dialects(
    observations: Iterable[Observation],
    query_params: Iterable[str],
    anonymous: Exchange | None,
    pagination: Mapping[str, object],
) -> tuple[str, str, list[str]]:
    """(errors, dialect, notes) from what the answers and the spec showed."""
    seen = list(observations)
    params = list(query_params)
    drf = any(o.options is not None and o.options.drf for o in seen)
    envelopes = [o.envelope for o in seen if o.envelope is not None]
    keys = {k for e in envelopes for k in e.keys}
    notes: list[str] = []
    if any(e.jsonapi for e in envelopes):
        errors = "jsonapi"
        notes.append("upstream.errors: jsonapi (sample: JSON:API documents)")
    elif {"page", "perPage", "totalItems", "items"} <= keys:
        errors = "pocketbase"
        notes.append("upstream.errors: pocketbase (sample: page/perPage/totalItems envelope)")
    elif drf or any(_drf_error(a) for a in [anonymous, *(o.answer for o in seen)]):
        errors = "drf"
        why = "options: DRF metadata" if drf else "sample: a {detail} error body"
        notes.append(f"upstream.errors: drf ({why})")
    elif any("x-runtime" in o.answer.headers for o in seen):
        errors = "rails"
        notes.append("upstream.errors: rails (sample: X-Runtime header; low confidence)")
    elif _graphql_error(anonymous):
        errors = "graphql"
        notes.append("upstream.errors: graphql (sample: an {errors: [{message, extensions}]} "
                     "answer without credentials)")  # fmt: skip
    elif _error_object(anonymous):
        errors = "error-object"
        notes.append("upstream.errors: error-object (sample: an {error: {type, message}} "
                     "answer without credentials)")  # fmt: skip
    else:
        errors = "plain"
        notes.append("upstream.errors: plain (no known error dialect recognised)")
    lookups = [p for p in params if p.endswith(_DJANGO_LOOKUPS)]
    if lookups or drf:
        dialect = "django-filter"
        why = "spec: __lookup query parameters" if lookups else "options: DRF metadata"
        notes.append(f"upstream.dialect: django-filter ({why})")
    elif errors == "pocketbase":
        dialect = "pocketbase"
        notes.append("upstream.dialect: pocketbase (sample: PocketBase envelope)")
    elif pagination.get("page") == "_page":
        dialect = "json-server"
        notes.append("upstream.dialect: json-server (sample: _page/_limit paging)")
    else:
        dialect = "none"
        notes.append("upstream.dialect: none (plain name=value parameters)")
    return errors, dialect, notes
