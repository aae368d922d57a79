"""Listings made by ``POST``: ``POST /things/filter {limit, offset, ...}`` in a spec.

RPC-style APIs (Prefect, many search endpoints) list a collection with a POST whose
JSON body carries the paging and the filter objects. Such a route is a listing when
its last segment is a listing verb (filter, search, query, list), it answers a list of
records, a detail route ``<parent>/{id}`` reads one of them, and its body declares
paging properties. The probe never sends that POST (it stays read-only): the listing
is taken from the spec alone and left for the verifier to prove.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .._naming import is_placeholder, segments
from ._openapi import SpecRoute
from ._schema import Resolver, SchemaProblem, flatten

LIST_VERBS = frozenset({"filter", "search", "query", "list"})


@dataclass(frozen=True, slots=True)
class PostListing:
    """A POST route listing the collection at `parent` (its own path kept as it is)."""

    route: SpecRoute
    parent: str
    body: tuple[str, ...]  # the top-level properties of its JSON body


def body_properties(route: SpecRoute, resolver: Resolver) -> tuple[str, ...]:
    if route.request.kind != "json":
        return ()
    try:
        schema, _, _ = flatten(route.request.schema, resolver)
    except SchemaProblem:
        return ()
    return tuple(str(k) for k in (schema.get("properties") or {}))


def post_listing(
    path: str, methods: Mapping[str, SpecRoute], resolver: Resolver
) -> PostListing | None:
    """The listing `path` offers by POST, if its name and body say it is one."""
    route = methods.get("POST")
    parts = segments(path)
    if route is None or len(parts) < 2 or parts[-1].lower() not in LIST_VERBS:
        return None
    if any(is_placeholder(p) for p in parts):
        return None  # a listing under another record: a nested collection
    body = body_properties(route, resolver)
    if not body:
        return None
    parent = path.rstrip("/").rpartition("/")[0]
    return PostListing(route, parent, body)
