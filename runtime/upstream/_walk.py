"""Listing an entity: one page as the protocol asks for it, or a bounded scan of all.

Both walk the upstream's own pages with the style of the mapping. The walk refuses
an upstream that sends a link it already sent, or a page of records it already
sent, instead of looping forever; a scan reports when its bound cut the listing
short so the caller can refuse rather than answer with a silent truncation.

A listing is complete or refused: a next link that fails, or a walk that ends with
fewer records than the upstream said it holds, or whose count moves by more than
a few records while it runs, is an error, never an answer with one record missing.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import httpx

from runtime.mapping import Entity
from runtime.protocol import ProtocolError

from ._pagination import Answer, Ask, Chunk, OffsetStyle, Style
from ._records import dig, id_text, to_protocol
from ._translate import NOT_FOUND, shape_error, translating

Fetch = Callable[[Ask, Entity], Awaitable[Answer]]
# Page size for walks when the mapping states no maximum: the upstream may cap it
# lower, which walking by the upstream's own links and counts tolerates.
DEFAULT_SIZE = 100


@dataclass(frozen=True, slots=True)
class Page:
    records: list[dict[str, Any]]
    total: int | None
    has_more: bool


def _no_listing(ask: Ask) -> ProtocolError:
    return ProtocolError(
        "upstream_error", f"The upstream has no listing at {ask.method} {ask.url.path} (HTTP 404)."
    )


def _capped(entity: Entity, got: int, size: int) -> ProtocolError:
    return ProtocolError(
        "upstream_error",
        f"The upstream sent {got} {entity.name} for a page of {size} while more remain: "
        "its page size limit is lower than the mapping's pagination.maxSize.",
    )


def _looping(entity: Entity, what: str) -> ProtocolError:
    return ProtocolError(
        "upstream_error", f"The upstream repeats itself listing {entity.name}: {what}."
    )


def _incomplete(entity: Entity, what: str) -> ProtocolError:
    return ProtocolError(
        "upstream_error",
        f"The {entity.name} listing could not be read to its end: {what}. Nothing was "
        "answered from part of it.",
    )


def _drift_bound(total: int) -> int:
    """How far the upstream's count may move during one walk (concurrent writes)."""
    return max(2, total // 100)


class Pager:
    def __init__(self, style: Style, fetch: Fetch, max_size: int | None) -> None:
        self.style = style
        self._fetch = fetch
        self.max_size = max_size

    def _size(self, wanted: int) -> int:
        return wanted if self.max_size is None else max(1, min(wanted, self.max_size))

    async def _chunk(self, entity: Entity, ask: Ask, position: int) -> Chunk | None:
        answer = await self._fetch(ask, entity)
        if answer.body is NOT_FOUND:
            return None
        with translating(f"{ask.method} {ask.url.path}"):
            return self.style.chunk(answer, ask, position)

    async def walk(self, entity: Entity, ask: Ask | None) -> AsyncGenerator[Chunk, None]:
        """Chunks from `ask` on, each holding only records not seen before."""
        requested: set[str] = set()
        ids: set[str] = set()
        position = 0
        guessed = False  # whether `ask` is only a guess that more follow
        totals: list[int] = []
        while ask is not None:
            key = ask.key()
            if key in requested:
                raise _looping(entity, "it sent a next link it had sent before")
            requested.add(key)
            chunk = await self._chunk(entity, ask, position)
            if chunk is None:
                if position == 0:
                    raise _no_listing(ask)
                if not guessed:
                    raise _incomplete(entity, "a page it said follows answered 404")
                break  # some upstreams answer 404 for the page after the last
            fresh = []
            for item in chunk.items:
                ident = id_text(dig(item, entity.id_source))
                if ident is None:
                    raise shape_error(f"a {entity.name} record without a usable id")
                if ident not in ids:
                    ids.add(ident)
                    fresh.append(item)
            if chunk.items and not fresh:
                raise _looping(entity, "it sent a page of records it had already sent")
            if not chunk.items and chunk.next is not None and not chunk.guessed:
                raise _looping(entity, "it sent an empty page that says more follow")
            if chunk.total is not None:
                totals.append(chunk.total)
                if max(totals) - min(totals) > _drift_bound(min(totals)):
                    raise _incomplete(
                        entity, f"its count moved from {totals[0]} to {chunk.total} meanwhile"
                    )
            position += len(chunk.items)
            ask = chunk.next if chunk.items else None
            guessed = chunk.guessed
            yield Chunk(fresh, chunk.total, ask, chunk.guessed)
        # Walked to the end: fewer records than the upstream says it holds means some
        # were skipped (a page that came back short, records that moved meanwhile).
        if totals and len(ids) < min(totals):
            raise _incomplete(entity, f"it sent {len(ids)} of the {min(totals)} it counts")

    async def list_page(self, entity: Entity, ask: Ask, *, page: int, per_page: int) -> Page:
        if page < 1 or per_page < 1:
            raise ValueError("page and per_page start at 1")
        start = (page - 1) * per_page
        size = self._size(per_page)
        if self.style.at(ask, start - start % size, size) is not None:
            return await self._addressed(entity, ask, start, per_page, size)
        return await self._walked(entity, ask, start, per_page)

    async def _addressed(
        self, entity: Entity, base: Ask, start: int, per_page: int, size: int
    ) -> Page:
        """Ask for exactly the positions wanted (page or offset parameters)."""
        by_offset = isinstance(self.style, OffsetStyle)
        position = start if by_offset else start - start % size
        skip = start - position
        records: list[dict[str, Any]] = []
        total: int | None = None
        while True:
            ask = self.style.at(base, position, size)
            assert ask is not None  # checked by the caller for this style and size
            chunk = await self._chunk(entity, ask, position)
            if chunk is None:
                if position == 0:
                    raise _no_listing(ask)
                # Past the last page: DRF answers 404; the total is still worth knowing.
                total = total if total is not None else await self._total(entity, base)
                more = False
                break
            total = chunk.total if total is None else total
            wanted, skip = chunk.items[skip:], 0
            room = per_page - len(records)
            records.extend(wanted[:room])
            end = position + len(chunk.items)
            if len(wanted) > room:
                more = True
                break
            last = chunk.next is None or not chunk.items
            if not last and len(chunk.items) < size:
                # A short page that says more follow: the end, when that was only a
                # guess and nothing follows, or else an upstream capping our size.
                if chunk.guessed and not await self._exists(entity, base, end):
                    last = True
                elif not by_offset:
                    raise _capped(entity, len(chunk.items), size)
            if last:
                more = False
                total = end if total is None and chunk.items else total
                break
            if len(records) >= per_page:
                more = not chunk.guessed or await self._exists(entity, base, end)
                break
            position = end if by_offset else position + size
        if total is not None:
            more = start + len(records) < total
            if len(records) < min(per_page, total - start):
                raise _incomplete(
                    entity, f"a page came back with {len(records)} records where it counts more"
                )
        return Page([to_protocol(entity, r) for r in records], total, more)

    async def _exists(self, entity: Entity, base: Ask, position: int) -> bool:
        ask = self.style.at(base, position, 1)
        chunk = None if ask is None else await self._chunk(entity, ask, position)
        return bool(chunk and chunk.items)

    async def _total(self, entity: Entity, base: Ask) -> int | None:
        ask = self.style.at(base, 0, 1)
        chunk = None if ask is None else await self._chunk(entity, ask, 0)
        return None if chunk is None else chunk.total

    async def _walked(self, entity: Entity, base: Ask, start: int, per_page: int) -> Page:
        """Styles that cannot name a position are walked from the start."""
        # Few, large pages, but no larger than what reaching one record past the page needs.
        wanted = start + per_page + 1
        size = self._size(wanted) if self.max_size else min(wanted, max(per_page, DEFAULT_SIZE))
        records: list[dict[str, Any]] = []
        total: int | None = None
        seen = 0
        more = False
        async with aclosing(self.walk(entity, self.style.first(base, size))) as chunks:
            async for chunk in chunks:
                total = chunk.total if total is None else total
                if total is None and chunk.next is None:
                    total = seen + len(chunk.items)  # the last chunk: the count is exact
                for item in chunk.items:
                    if seen >= start + per_page:
                        more = True
                        break
                    if seen >= start:
                        records.append(item)
                    seen += 1
                if more:
                    break
        if not more and total is None:
            total = seen  # walked to the end: the count is exact
        return Page([to_protocol(entity, r) for r in records], total, more)

    def scan(self, entity: Entity, base: Ask, *, limit: int) -> Scan:
        size = self._size(max(1, min(limit + 1, self.max_size or DEFAULT_SIZE)))
        return Scan(self.walk(entity, self.style.first(base, size)), entity, limit)


class Scan:
    """At most `limit` records of one listing, the upstream's pages walked transparently.

    ``async for record in scan`` yields protocol records. Once iteration ends,
    `truncated` says whether the upstream held more than `limit` (the caller must
    then refuse, not answer from a partial set) and `total` is the upstream's own
    count when it reports one.
    """

    def __init__(self, chunks: AsyncGenerator[Chunk, None], entity: Entity, limit: int) -> None:
        self.limit = limit
        self.truncated = False
        self.total: int | None = None
        self.count = 0
        self._records = self._run(chunks, entity)

    async def _run(
        self, chunks: AsyncGenerator[Chunk, None], entity: Entity
    ) -> AsyncGenerator[dict[str, Any], None]:
        async with aclosing(chunks):
            walked = 0
            async for chunk in chunks:
                if self.total is None:
                    self.total = chunk.total
                if self.total is None and chunk.next is None:
                    self.total = walked + len(chunk.items)
                walked += len(chunk.items)
                for item in chunk.items:
                    if self.count >= self.limit:
                        self.truncated = True
                        return
                    self.count += 1
                    yield to_protocol(entity, item)

    def __aiter__(self) -> Scan:
        return self

    async def __anext__(self) -> dict[str, Any]:
        return await anext(self._records)

    async def aclose(self) -> None:
        await self._records.aclose()

    async def collect(self) -> list[dict[str, Any]]:
        """Every record up to the bound; check `truncated` afterwards."""
        return [record async for record in self]


def with_params(url: httpx.URL, params: Mapping[str, str] | None) -> httpx.URL:
    return url.copy_merge_params(dict(params)) if params else url
