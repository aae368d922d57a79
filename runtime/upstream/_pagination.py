"""Pagination styles: one small class per ``pagination.style`` of the mapping.

A style knows how to ask for the first chunk of a listing, how to read a chunk
(its raw items, the total if the upstream reports one, and where the next chunk
is), and, for styles that can address any position, how to ask for a given one.
Walking, bounds and the repeated-page guard live in `_walk`, shared by all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

import httpx

from runtime.mapping import Pagination

from ._confine import BaseUrl
from ._records import dig
from ._translate import shape_error


@dataclass(frozen=True, slots=True)
class Ask:
    """One listing request: a GET with the paging in its query, or (``list.method:
    POST``) a POST with the paging in its JSON body; headers for ``Range``."""

    url: httpx.URL
    method: str = "GET"
    body: Mapping[str, Any] | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def with_params(self, params: Mapping[str, str | int]) -> Ask:
        if self.method == "POST":
            # A JSON body keeps numbers numbers: typed APIs refuse "20" for a limit.
            return replace(self, body={**(self.body or {}), **params})
        return replace(self, url=self.url.copy_merge_params({k: str(v) for k, v in params.items()}))

    def param(self, name: str) -> Any:
        return (self.body or {}).get(name) if self.method == "POST" else self.url.params.get(name)

    def with_headers(self, headers: Mapping[str, str]) -> Ask:
        kept = tuple((k, v) for k, v in self.headers if k.lower() not in _lower(headers))
        return replace(self, headers=kept + tuple(headers.items()))

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def to(self, url: httpx.URL) -> Ask:
        """A next link the upstream sent: that URL, asked for the same way."""
        return replace(self, url=url)

    def key(self) -> str:
        """The same request whatever the order of its query parameters or body keys."""
        query = sorted(self.url.params.multi_items())
        url = str(self.url.copy_with(query=None, fragment=None))
        body = sorted((k, repr(v)) for k, v in (self.body or {}).items())
        return f"{self.method} {url}?{query!r} {body!r} {sorted(self.headers)!r}"


def _lower(headers: Mapping[str, str]) -> set[str]:
    return {k.lower() for k in headers}


# The answer to a range past the end (HTTP 416): an empty chunk, not an error.
PAST_END: Any = object()


@dataclass(frozen=True, slots=True)
class Answer:
    body: Any
    response: httpx.Response


@dataclass(frozen=True, slots=True)
class Chunk:
    items: list[dict[str, Any]]
    total: int | None
    next: Ask | None
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


# Content-Range: "items 0-24/319", "0-24/319", "*/319"; "/*" is an unknown total.
_CONTENT_RANGE = re.compile(r"^\s*(?:[A-Za-z][\w-]*\s+)?(?:\d+-\d+|\*)\s*/\s*(\d+)\s*$")
_RANGE = re.compile(r"^(?:[A-Za-z][\w-]*=)?(\d+)-(\d+)$")


def header_total(value: str | None) -> int | None:
    """A count from a header: a bare number, or the length after a Content-Range's slash."""
    if value is None:
        return None
    found = _CONTENT_RANGE.match(value)
    return int(found.group(1)) if found else _int(value)


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

    def first(self, ask: Ask, size: int) -> Ask:
        return ask

    def at(self, ask: Ask, start: int, size: int) -> Ask | None:
        """The request for records ``[start, start + size)``, if this style can name it."""
        return None

    def chunk(self, answer: Answer, requested: Ask, position: int) -> Chunk:
        if answer.body is PAST_END:
            return Chunk([], self.total(answer), None)
        items = self.items(answer.body)
        return Chunk(items, self.total(answer), self.next(answer, requested, position, items))

    def next(
        self, answer: Answer, requested: Ask, position: int, items: list[dict[str, Any]]
    ) -> Ask | None:
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
        if self.p.total is not None and answer.body is not PAST_END:
            return _int(dig(answer.body, self.p.total))
        if self.p.total_header is not None:
            return header_total(answer.response.headers.get(self.p.total_header))
        return None

    @property
    def names_next(self) -> bool:
        """Whether the answer itself says if a next page follows (body or header)."""
        return self.p.next is not None or self.p.next_header is not None

    def next_value(self, answer: Answer) -> Any:
        """The next link or cursor, from the body's ``next`` or the ``nextHeader``."""
        if self.p.next_header is not None:
            return answer.response.headers.get(self.p.next_header) or None
        return dig(answer.body, self.p.next) if self.p.next else None

    def sized(self, ask: Ask, size: int) -> Ask:
        return ask.with_params({self.p.size: size}) if self.p.size else ask

    def page_at(self, ask: Ask, start: int, size: int) -> Ask | None:
        """Page numbers name a position only when it starts a page of that size."""
        if not (self.p.page and self.p.size) or start % size:
            return None
        number = self.p.first_page + start // size
        return self.sized(ask, size).with_params({self.p.page: number})


class _Numbered(Style):
    """Shared by ``page``, ``offset`` and ``range``: the next position can be computed."""

    def step(self, requested: Ask, position: int, count: int) -> Ask:
        raise NotImplementedError

    def next(
        self, answer: Answer, requested: Ask, position: int, items: list[dict[str, Any]]
    ) -> Ask | None:
        if self.names_next:
            value = self.next_value(answer)
            if _is_link(value):
                return requested.to(self.base.follow(value, answer.response.url))
            return self.step(requested, position, len(items)) if value else None
        total = self.total(answer)
        if total is not None:
            end = position + len(items)
            return self.step(requested, position, len(items)) if end < total else None
        return self.step(requested, position, len(items)) if items else None

    def chunk(self, answer: Answer, requested: Ask, position: int) -> Chunk:
        chunk = super().chunk(answer, requested, position)
        guessed = not self.names_next and chunk.total is None and chunk.next is not None
        return Chunk(chunk.items, chunk.total, chunk.next, guessed)


class PageStyle(_Numbered):
    """``page``: page number and size parameters (DRF, kaminari, PocketBase)."""

    def _page_of(self, ask: Ask) -> int:
        return _int(ask.param(self.p.page or "")) or self.p.first_page

    def first(self, ask: Ask, size: int) -> Ask:
        ask = self.sized(ask, size)
        return ask.with_params({self.p.page: self.p.first_page}) if self.p.page else ask

    def at(self, ask: Ask, start: int, size: int) -> Ask | None:
        return self.page_at(ask, start, size)

    def step(self, requested: Ask, position: int, count: int) -> Ask:
        if not self.p.page:
            raise shape_error("a next page, but the mapping names no page parameter")
        return requested.with_params({self.p.page: self._page_of(requested) + 1})


class OffsetStyle(_Numbered):
    """``offset``: offset and size parameters (``?offset=40&limit=20``)."""

    def first(self, ask: Ask, size: int) -> Ask:
        return self.at(ask, 0, size) or ask

    def at(self, ask: Ask, start: int, size: int) -> Ask | None:
        if not self.p.offset:
            return None
        return self.sized(ask, size).with_params({self.p.offset: start})

    def step(self, requested: Ask, position: int, count: int) -> Ask:
        return requested.with_params({self.p.offset or "offset": position + count})


class RangeStyle(OffsetStyle):
    """``range``: HTTP range requests (``Range: items=0-24``, or ``Range-Unit: items``
    with ``Range: 0-24``), answered by ``Content-Range: items 0-24/319``; a range
    past the end may be answered 416."""

    def at(self, ask: Ask, start: int, size: int) -> Ask | None:
        unit, last = self.p.unit or "items", start + size - 1
        if self.p.unit_header:
            return ask.with_headers({self.p.unit_header: unit, "Range": f"{start}-{last}"})
        return ask.with_headers({"Range": f"{unit}={start}-{last}"})

    def step(self, requested: Ask, position: int, count: int) -> Ask:
        asked = _RANGE.match(requested.header("Range") or "")
        size = int(asked.group(2)) - int(asked.group(1)) + 1 if asked else max(count, 1)
        found = self.at(requested, position + count, size)
        assert found is not None  # a range names every position
        return found

    def total(self, answer: Answer) -> int | None:
        if self.p.total is not None or self.p.total_header is not None:
            return super().total(answer)
        return header_total(answer.response.headers.get("Content-Range"))


class CursorStyle(Style):
    """``cursor``: the body names the next cursor (or a next link) at ``next``, or a
    header does (``nextHeader``); or, with ``nextFrom``, the last record holds it
    (Stripe: ``starting_after`` its id, while ``has_more`` is true)."""

    def first(self, ask: Ask, size: int) -> Ask:
        return self.sized(ask, size)

    def next(
        self, answer: Answer, requested: Ask, position: int, items: list[dict[str, Any]]
    ) -> Ask | None:
        if not self.names_next and self.p.next_from is not None:
            return self._after_last(answer, requested, items, self.p.next_from)
        value = self.next_value(answer)
        if _is_link(value):
            return requested.to(self.base.follow(value, answer.response.url))
        if value is None or value == "" or isinstance(value, bool | dict | list):
            return None
        return requested.with_params({self.p.cursor or "cursor": str(value)})

    def _after_last(
        self,
        answer: Answer,
        requested: Ask,
        items: list[dict[str, Any]],
        key: tuple[str, ...],
    ) -> Ask | None:
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
        return requested.with_params({self.p.cursor or "cursor": str(value)})


class LinkStyle(Style):
    """``link``: RFC 8288 ``Link: <…>; rel="next"`` headers (json-server, GitHub)."""

    def first(self, ask: Ask, size: int) -> Ask:
        ask = self.sized(ask, size)
        # json-server only pages (and sends Link) once a page is asked for.
        return ask.with_params({self.p.page: self.p.first_page}) if self.p.page else ask

    def at(self, ask: Ask, start: int, size: int) -> Ask | None:
        return self.page_at(ask, start, size)

    def next(
        self, answer: Answer, requested: Ask, position: int, items: list[dict[str, Any]]
    ) -> Ask | None:
        link = answer.response.links.get("next", {}).get("url")
        return requested.to(self.base.follow(str(link), answer.response.url)) if link else None


STYLES: dict[str, type[Style]] = {
    "none": Style,
    "page": PageStyle,
    "offset": OffsetStyle,
    "cursor": CursorStyle,
    "link": LinkStyle,
    "range": RangeStyle,
}


def style_for(pagination: Pagination, base: BaseUrl) -> Style:
    return STYLES[pagination.style](pagination, base)
