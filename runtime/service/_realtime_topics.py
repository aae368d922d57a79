"""Realtime topics, PocketBase's way: `<entity>/*` or `<entity>/<recordId>`, with options
`?options={"query":{"filter":...,"fields":...}}`, parsed once at subscribe time and matched
against each change of the feed.

A topic's filter reads the changed record's own fields only: a path through a ref would
need upstream reads per change and per subscriber, so it is refused at subscribe time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

from runtime.mapping import Entity
from runtime.protocol import ProtocolError
from runtime.query import (
    EntityResolver,
    Expr,
    FieldPick,
    compile_filter,
    parse_fields,
    parse_filter,
    project_fields,
)
from runtime.store import FeedChange

from ._reads import check_fields

ALL = "*"
# What the SDK may put beside `query`: PocketBase passes them to its access rules as the
# request's headers; here access is the credential of the subscription, so they are unused.
IGNORED_OPTIONS = ("headers",)
QUERY_OPTIONS = ("filter", "fields")


@dataclass(frozen=True, slots=True)
class Topic:
    raw: str  # exactly as the client sent it: a message's `event:`
    entity: Entity
    record_id: str  # ALL for every record
    filter_text: str = ""
    filter: Expr | None = None
    fields: tuple[FieldPick, ...] = ()

    def message(self, change: FeedChange, record: Mapping[str, Any]) -> dict[str, Any] | None:
        """The `{action, record}` this topic delivers for `change` (the record as it is, or
        as it was for a delete), or None when the topic does not take it."""
        if change.entity != self.entity.name:
            return None
        if self.record_id != ALL and change.record_id != self.record_id:
            return None
        if self.filter is not None:
            if set(record) == {"id"}:
                return None  # a delete the feed holds no record of: nothing to filter on
            resolver = EntityResolver(self.entity)
            predicate = compile_filter(self.filter, resolver, now=datetime.now(UTC))
            if not predicate(record):
                return None
        shown = project_fields(record, self.fields) if self.fields else dict(record)
        return {"action": change.action, "record": shown}


def entity_part(raw: str) -> str:
    """The entity a topic names, before any parsing that can fail."""
    return raw.split("?", 1)[0].split("/", 1)[0]


def parse_topic(raw: str, entities: Mapping[str, Entity]) -> Topic:
    """A topic whose entity is served; refused with `unknown_entity`, `invalid_query` or
    `invalid_filter` otherwise."""
    path, _, query = raw.partition("?")
    name, _, record_id = path.partition("/")
    entity = entities.get(name)
    if entity is None:
        raise ProtocolError("unknown_entity", f"Topic {raw!r} names no served entity {name!r}.")
    # a bare `<entity>` is PocketBase's deprecated spelling of `<entity>/*`
    record_id = record_id or ALL
    if "/" in record_id:
        raise ProtocolError("invalid_query", f"Topic {raw!r} is not <entity>/* or <entity>/<id>.")
    options = _options(raw, query)
    filter_text = options.get("filter", "")
    expr = parse_filter(filter_text) if filter_text else None
    if expr is not None:
        # compiled once here so a bad filter is refused now, not skipped at each change
        compile_filter(expr, EntityResolver(entity), text=filter_text)
    fields_text = options.get("fields", "")
    if fields_text:
        check_fields(entity, fields_text)
    fields = parse_fields(fields_text)
    return Topic(raw, entity, record_id, filter_text, expr, fields)


def _options(raw: str, query: str) -> dict[str, str]:
    """`query.filter` and `query.fields` of the topic's `options` parameter."""
    if not query:
        return {}
    params = parse_qs(query, keep_blank_values=True)
    if set(params) != {"options"} or len(params["options"]) != 1:
        raise ProtocolError(
            "invalid_query", f"Topic {raw!r}: only one `options` parameter is read.",
            got=sorted(params), allowed=["options"],
        )  # fmt: skip
    try:
        doc = json.loads(params["options"][0])
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise ProtocolError("invalid_query", f"Topic {raw!r}: options is not a JSON object.")
    unknown = [k for k in doc if k not in ("query", *IGNORED_OPTIONS)]
    wanted = doc.get("query") or {}
    if isinstance(wanted, dict):
        unknown += [f"query.{k}" for k in wanted if k not in QUERY_OPTIONS]
    if unknown or not isinstance(wanted, dict):
        # `expand` among them: a realtime record is sent as the feed holds it
        raise ProtocolError(
            "invalid_query",
            f"Topic {raw!r}: options {', '.join(unknown) or 'query'} not served here; "
            "a topic takes query.filter and query.fields.",
            got=unknown, allowed=[f"query.{k}" for k in QUERY_OPTIONS],
        )  # fmt: skip
    out = {}
    for key in QUERY_OPTIONS:
        value = wanted.get(key, "")
        if not isinstance(value, str):
            raise ProtocolError("invalid_query", f"Topic {raw!r}: query.{key} is not text.")
        out[key] = value
    return out
