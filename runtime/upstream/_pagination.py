"""Pagination styles: one small class per ``pagination.style`` of the mapping.

A style knows how to ask for the first chunk of a listing, how to read a chunk
(its raw items, the total if the upstream reports one, and where the next chunk
is), and, for styles that can address any position, how to ask for a given one.
Walking, bounds and the repeated-page guard live in `_walk`, shared by all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

import httpx

from runtime.mapping import Pagination

from ._confine import BaseUrl
from ._records import dig
from ._translate import shape_error


@dataclass(frozen=True, slots=True)
class Answer:
    body: Any
    response: httpx.Response


@dataclass(frozen=True, slots=True)
class Chunk:
    items: list[dict[str, Any]]
    total: int | None
    next: httpx.URL | None
    # True when `next` is only a guess (a full page, no next link, no total): the
    # following chunk may well be empty, and an empty one then ends the listing.
    guessed: bool = False


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


_MISSING: Any = object()


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


def _is_link(value: Any) -> TypeGuard[str]:
    # Opaque cursors may contain "/" (base64); only a URL or a path is a link.
    return isinstance(value, str) and value.startswith(("http://", "https://", "/", "?"))


class Style:
    """``none``: one request answers everything (a bare array or the items path)."""

    def __init__(self, pagination: Pagination, base: BaseUrl) -> None:
        self.p = pagination
        self.base = base

    def first(self, url: httpx.URL, size: int) -> httpx.URL:
        return url

    def at(self, url: httpx.URL, start: int, size: int) -> httpx.URL | None:
        """The request for records ``[start, start + size)``, if this style can name it."""
        return None

    def chunk(self, answer: Answer, requested: httpx.URL, position: int) -> Chunk:
        items = self.items(answer.body)
        return Chunk(items, self.total(answer), self.next(answer, requested, position, items))

    def next(
        self, answer: Answer, requested: httpx.URL, position: int, items: list[dict[str, Any]]
    ) -> httpx.URL | None:
        return None

    def items(self, body: Any) -> list[dict[str, Any]]:
        path = ".".join(self.p.items)
        if not self.p.items:
            found, where = body, "the answer"
        elif not isinstance(body, dict):
            raise shape_error(f"{_kind(body)} where an object holding {path!r} was expected")
        else:
            found, where = dig(body, self.p.items, _MISSING), repr(path)
            if found is _MISSING:
                raise shape_error(f"an object without {path!r}")
        if not isinstance(found, list):
            raise shape_error(f"{_kind(found)} as {where}, where a list of records was expected")
        if not all(isinstance(item, dict) for item in found):
            raise shape_error(f"{where} holding something other than records")
        return found

    def total(self, answer: Answer) -> int | None:
        if self.p.total is not None:
            return _int(dig(answer.body, self.p.total))
        if self.p.total_header is not None:
            return _int(answer.response.headers.get(self.p.total_header))
        return None

    def sized(self, url: httpx.URL, size: int) -> httpx.URL:
        return url.copy_merge_params({self.p.size: str(size)}) if self.p.size else url

    def page_at(self, url: httpx.URL, start: int, size: int) -> httpx.URL | None:
        """Page numbers name a position only when it starts a page of that size."""
        if not (self.p.page and self.p.size) or start % size:
            return None
        number = self.p.first_page + start // size
        return self.sized(url, size).copy_merge_params({self.p.page: str(number)})


class _Numbered(Style):
    """Shared by ``page`` and ``offset``: the next position can be computed."""

    def step(self, requested: httpx.URL, position: int, count: int) -> httpx.URL:
        raise NotImplementedError

    def next(
        self, answer: Answer, requested: httpx.URL, position: int, items: list[dict[str, Any]]
    ) -> httpx.URL | None:
        if self.p.next is not None:
            value = dig(answer.body, self.p.next)
            if _is_link(value):
                return self.base.follow(value, answer.response.url)
            return self.step(requested, position, len(items)) if value else None
        total = self.total(answer)
        if total is not None:
            end = position + len(items)
            return self.step(requested, position, len(items)) if end < total else None
        return self.step(requested, position, len(items)) if items else None

    def chunk(self, answer: Answer, requested: httpx.URL, position: int) -> Chunk:
        chunk = super().chunk(answer, requested, position)
        guessed = self.p.next is None and chunk.total is None and chunk.next is not None
        return Chunk(chunk.items, chunk.total, chunk.next, guessed)


class PageStyle(_Numbered):
    """``page``: page number and size parameters (DRF, kaminari, PocketBase)."""

    def _page_of(self, url: httpx.URL) -> int:
        return _int(url.params.get(self.p.page or "")) or self.p.first_page

    def first(self, url: httpx.URL, size: int) -> httpx.URL:
        url = self.sized(url, size)
        return url.copy_merge_params({self.p.page: str(self.p.first_page)}) if self.p.page else url

    def at(self, url: httpx.URL, start: int, size: int) -> httpx.URL | None:
        return self.page_at(url, start, size)

    def step(self, requested: httpx.URL, position: int, count: int) -> httpx.URL:
        if not self.p.page:
            raise shape_error("a next page, but the mapping names no page parameter")
        return requested.copy_merge_params({self.p.page: str(self._page_of(requested) + 1)})


class OffsetStyle(_Numbered):
    """``offset``: offset and size parameters (``?offset=40&limit=20``)."""

    def first(self, url: httpx.URL, size: int) -> httpx.URL:
        return self.at(url, 0, size) or url

    def at(self, url: httpx.URL, start: int, size: int) -> httpx.URL | None:
        if not self.p.offset:
            return None
        return self.sized(url, size).copy_merge_params({self.p.offset: str(start)})

    def step(self, requested: httpx.URL, position: int, count: int) -> httpx.URL:
        return requested.copy_merge_params({self.p.offset or "offset": str(position + count)})


class CursorStyle(Style):
    """``cursor``: the body names the next cursor (or a next link) at ``next``; or,
    with ``nextFrom``, the last record holds it (Stripe: ``starting_after`` its id,
    while ``has_more`` is true)."""

    def first(self, url: httpx.URL, size: int) -> httpx.URL:
        return self.sized(url, size)

    def next(
        self, answer: Answer, requested: httpx.URL, position: int, items: list[dict[str, Any]]
    ) -> httpx.URL | None:
        if self.p.next is None and self.p.next_from is not None:
            return self._after_last(answer, requested, items, self.p.next_from)
        value = dig(answer.body, self.p.next) if self.p.next else None
        if _is_link(value):
            return self.base.follow(value, answer.response.url)
        if value is None or value == "" or isinstance(value, bool | dict | list):
            return None
        return requested.copy_merge_params({self.p.cursor or "cursor": str(value)})

    def _after_last(
        self,
        answer: Answer,
        requested: httpx.URL,
        items: list[dict[str, Any]],
        key: tuple[str, ...],
    ) -> httpx.URL | None:
        if self.p.more is not None:
            more = dig(answer.body, self.p.more, _MISSING)
            if not isinstance(more, bool):
                what = "missing" if more is _MISSING else _kind(more)
                raise shape_error(f"{what} as {'.'.join(self.p.more)!r}, where true or false")
            if not more:
                return None
            if not items:
                raise shape_error(f"an empty page while {'.'.join(self.p.more)!r} is true")
        if not items:
            return None
        value = dig(items[-1], key)
        if value is None or value == "" or isinstance(value, bool | dict | list):
            raise shape_error(f"a last record without {'.'.join(key)!r}, the next page's cursor")
        return requested.copy_merge_params({self.p.cursor or "cursor": str(value)})


class LinkStyle(Style):
    """``link``: RFC 8288 ``Link: <…>; rel="next"`` headers (json-server, GitHub)."""

    def first(self, url: httpx.URL, size: int) -> httpx.URL:
        url = self.sized(url, size)
        # json-server only pages (and sends Link) once a page is asked for.
        return url.copy_merge_params({self.p.page: str(self.p.first_page)}) if self.p.page else url

    def at(self, url: httpx.URL, start: int, size: int) -> httpx.URL | None:
        return self.page_at(url, start, size)

    def next(
        self, answer: Answer, requested: httpx.URL, position: int, items: list[dict[str, Any]]
    ) -> httpx.URL | None:
        link = answer.response.links.get("next", {}).get("url")
        return self.base.follow(str(link), answer.response.url) if link else None


STYLES: dict[str, type[Style]] = {
    "none": Style,
    "page": PageStyle,
    "offset": OffsetStyle,
    "cursor": CursorStyle,
    "link": LinkStyle,
}


def style_for(pagination: Pagination, base: BaseUrl) -> Style:
    return STYLES[pagination.style](pagination, base)
