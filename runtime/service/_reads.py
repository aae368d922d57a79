"""Record reads through the planner: pushed down where the mapping allows, checked here."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping as AbcMapping
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from runtime.mapping import Entity
from runtime.protocol import ProtocolError, describe
from runtime.query import (
    EntityResolver,
    FieldPick,
    Paging,
    Plan,
    Predicate,
    Sorter,
    compile_filter,
    compile_sort,
    parse_expand,
    parse_fields,
    parse_filter,
    parse_paging,
    parse_sort,
    plan,
    project_fields,
)

from ._fanout import bounded
from ._reach import Reach
from ._related import Related, ref_paths

log = logging.getLogger("a2app.runtime")

_PAGED_STYLES = ("page", "offset", "range")


RECORD_PARAMS = ("filter", "sort", "page", "perPage", "skipTotal", "expand", "fields")
# A filter or sort this long is no query a person or an agent wrote.
TEXT_LIMIT = 16 * 1024


def check_fields(entity: Entity, text: str) -> None:
    """A `fields` value that parses and names only what the entity declares."""
    _declared_picks(entity, parse_fields(text), text)


def _declared_picks(entity: Entity, picks: Sequence[FieldPick], text: str) -> None:
    """`fields` naming what the entity does not have is refused, as sort and expand are."""
    known = {"id", "expand", "*", *entity.fields}
    unknown = [p.path[0] for p in picks if p.path and p.path[0] not in known]
    if unknown:
        raise ProtocolError(
            "invalid_filter",
            f"fields names {', '.join(map(repr, unknown))}, which {entity.name} does not "
            f"declare; declared: {', '.join(entity.fields)}.",
            got=text,
        )


def _page_doc(items: list[Any], paging: Paging, total: int | None) -> dict[str, Any]:
    if paging.skip_total or total is None:
        total_items = total_pages = -1
    else:
        total_items = total
        total_pages = (total + paging.per_page - 1) // paging.per_page
    return {
        "page": paging.page,
        "perPage": paging.per_page,
        "totalItems": total_items,
        "totalPages": total_pages,
        "items": items,
    }


REFUSED: dict[str, Any] = {}
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]-]*", re.ASCII)


def refuse_stray_parts(query: AbcMapping[str, str]) -> None:
    """A query part that is no parameter name is almost always a filter cut at a raw `&&`."""
    stray = [key for key in query if not _PARAM_NAME.fullmatch(key)]
    if stray:
        raise ProtocolError(
            "invalid_filter",
            f"The query string has parts that are no parameter: {', '.join(map(repr, stray))}. "
            "Was the filter cut at an unencoded '&&'? Encode it as %26%26.",
            got=query.get("filter", ""),
        )


class Reads:
    """Record reads; counts the pushdowns the local re-check contradicted (`drift`)."""

    def __init__(self, reach: Reach) -> None:
        self.reach = reach
        self.drift = 0

    async def fetch(self, entity: Entity, record_id: str) -> dict[str, Any]:
        record = await self.reach.upstream.get_record(entity, record_id)
        if record is None:
            raise ProtocolError("record_not_found", f"No {entity.name} record {record_id!r}.")
        return record

    def check_shape(self, entity: Entity, query: AbcMapping[str, str]) -> None:
        """`fields` and `expand` name only what the entity declares: refused before any read,
        so a list, an empty page and one record refuse alike."""
        picks = parse_fields(query.get("fields", ""))
        if picks:
            _declared_picks(entity, picks, query.get("fields", ""))
        Related(self.reach).check_expand(entity, parse_expand(query.get("expand", "")))

    async def shaped(
        self,
        entity: Entity,
        records: list[dict[str, Any]],
        query: AbcMapping[str, str],
        related: Related | None = None,
    ) -> list[dict[str, Any]]:
        """`expand` and `fields` applied to records already read (a page, one record, a
        write), the one way every read does it; `related` reuses what a filter fetched."""
        self.check_shape(entity, query)
        picks = parse_fields(query.get("fields", ""))
        expand = parse_expand(query.get("expand", ""))
        await (related or Related(self.reach)).expand(entity, records, expand)
        return [project_fields(r, picks) for r in records] if picks else records

    async def labels(self, target: Entity, ids: list[str]) -> list[dict[str, Any]]:
        """`{id, label}` per id; a dangling id is still listed, with label null."""
        upstream = self.reach.upstream
        records = await bounded(self.reach.fanout, (upstream.get_record(target, i) for i in ids))
        return [
            {"id": i, "label": describe.label_of(target, r) if r is not None else None}
            for i, r in zip(ids, records, strict=True)
        ]

    async def listing(self, entity: Entity, query: AbcMapping[str, str]) -> dict[str, Any]:
        reach = self.reach
        filter_text = query.get("filter", "")
        sort_text = query.get("sort", "")
        for name, text in (("filter", filter_text), ("sort", sort_text)):
            if len(text) > TEXT_LIMIT:
                raise ProtocolError(
                    "invalid_filter",
                    f"The {name} is {len(text)} characters; at most {TEXT_LIMIT} are read.",
                    got=text[:200],
                )
        expr = parse_filter(filter_text)
        sort = parse_sort(sort_text)
        paging = parse_paging(query.get("page"), query.get("perPage"), query.get("skipTotal"))
        self.check_shape(entity, query)
        related = Related(reach)
        through_refs = ref_paths(expr, sort)
        resolver = EntityResolver(entity, reach.mapping.entities, related.lookup)
        predicate = compile_filter(expr, resolver, now=datetime.now(UTC), text=filter_text or None)
        sorter = compile_sort(sort, resolver, text=sort_text or None)
        pagination = reach.upstream.pagination_of(entity)
        # A page parameter lets the upstream be asked for one page directly, Link headers or not.
        can_page = pagination.style in _PAGED_STYLES or (
            pagination.style == "link" and pagination.page is not None
        )
        the_plan = plan(entity, expr, sort, reach.upstream.dialect, can_page=can_page)

        doc = None
        if the_plan.delegate and not through_refs:
            doc = await self._delegated(entity, the_plan, predicate, paging)
            if doc is REFUSED:
                the_plan, doc = replace(the_plan, params={}), None
        if doc is None:
            doc = await self._local(
                entity, the_plan, predicate, sorter, paging, filter_text, related, through_refs
            )
        doc["items"] = await self.shaped(entity, doc["items"], query, related)
        return doc

    async def _delegated(
        self, entity: Entity, the_plan: Plan, predicate: Predicate, paging: Paging
    ) -> dict[str, Any] | None:
        """The upstream pages and counts; None when its answer cannot be used as it is."""
        try:
            page = await self.reach.upstream.list_page(
                entity, the_plan.params, page=paging.page, per_page=paging.per_page
            )
        except ProtocolError as exc:
            if exc.is_("upstream_rejected"):
                return REFUSED  # a refused narrowing value: the local check decides alone
            raise
        kept = [r for r in page.records if predicate(r)]
        if len(kept) != len(page.records):
            self.drift += 1
            log.warning(
                "pushdown drift on %s: the upstream returned %d records the filter rejects; "
                "answering from a local scan",
                entity.name,
                len(page.records) - len(kept),
            )
            return None
        if page.total is None and not paging.skip_total:
            return None
        return _page_doc(kept, paging, page.total)

    async def _local(
        self,
        entity: Entity,
        the_plan: Plan,
        predicate: Predicate,
        sorter: Sorter,
        paging: Paging,
        filter_text: str,
        related: Related,
        through_refs: list[tuple[str, ...]],
    ) -> dict[str, Any]:
        upstream = self.reach.upstream
        limit = self.reach.mapping.serve.scan_limit
        try:
            scan = upstream.scan(entity, the_plan.params, limit=limit)
            scanned = [r async for r in scan]
        except ProtocolError as exc:
            if not exc.is_("upstream_rejected") or not the_plan.params:
                raise
            # The upstream refused a value it was only asked to narrow by (django-filter
            # answers 400 for an unknown choice): the local check alone decides.
            log.info("pushdown refused on %s (%s); scanning without it", entity.name, exc.message)
            scan = upstream.scan(entity, {}, limit=limit)
            scanned = [r async for r in scan]
        if through_refs:
            await related.prefetch(entity, scanned, through_refs)
        matched = [r for r in scanned if predicate(r)]
        if scan.truncated:
            raise ProtocolError(
                "invalid_filter",
                f"Answering this query would need more than {limit} {entity.name} records "
                "checked here, because the upstream cannot narrow it; add a condition the "
                f"mapping pushes down ({', '.join(sorted(entity.filters)) or 'none declared'}).",
                got=filter_text,
            )
        ordered = sorter(matched)
        window = ordered[paging.offset : paging.offset + paging.per_page]
        return _page_doc(window, paging, len(ordered))
