"""Read-only probes that tell paging parameters from field filters, and find paging
that lives in headers (a next URL or cursor, ``Content-Range``, range requests).

A parameter the API takes as a field filter is never assumed to page: json-server
1.0-beta answers ``[]`` to ``_limit=1`` because it filters on a field ``_limit``. A
size or page probe counts only when it answers exactly the records the unpaged list
starts with (page 2: the record after them); fewer records while more exist, none,
or other records mean the parameter is not a paging one, and the note says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ..live import envelope_of, records_of

if TYPE_CHECKING:
    import httpx

    from ..live import Exchange

Fetch: TypeAlias = "Callable[..., Exchange]"
Rows = Sequence[Mapping[str, Any]]
# Header names that carry the next page: X-Next-Page, X-Next-Cursor, Next-Page, X-Next.
NEXT_HEADER = re.compile(r"(?:^|-)next(?:-|$)", re.IGNORECASE)
CONTENT_RANGE = re.compile(r"^\s*(?:[A-Za-z][\w-]*\s+)?(?:\d+-\d+|\*)\s*/\s*\d+\s*$")
# The two spellings of a range request for the first record.
RANGE_FORMS: tuple[tuple[dict[str, str], dict[str, Any]], ...] = (
    ({"Range": "items=0-0"}, {"style": "range"}),
    ({"Range-Unit": "items", "Range": "0-0"}, {"style": "range", "unit": "items",
                                              "unitHeader": "Range-Unit"}),
)  # fmt: skip


def _key(row: Mapping[str, Any]) -> str:
    """A record's identity: its id when it has one, else the whole record."""
    if "id" in row:
        return f"id:{row['id']}"
    return json.dumps(row, sort_keys=True, default=str)


def rows_of(answer: Exchange) -> list[Mapping[str, Any]] | None:
    """The records of an answer, or None when it is not a list answer."""
    if not answer.ok:
        return None
    envelope = envelope_of(answer.body, answer.content_type)
    return None if envelope is None else records_of(answer.body, envelope)


def why_not(answer: Exchange, expected: Rows, total: int) -> str | None:
    """Why `answer` is not exactly `expected` (the slice a paging probe asks for)."""
    got = rows_of(answer)
    if got is None:
        return f"answered HTTP {answer.status}" if answer.status else "did not answer"
    if not got and total:
        return f"answered no record while {total} exist: the API takes it as a field filter"
    if len(got) > len(expected):
        return f"answered {len(got)} records for {len(expected)}: the size is ignored"
    if len(got) < len(expected):
        return f"answered {len(got)} of {len(expected)} records while more exist"
    if [_key(r) for r in got] != [_key(r) for r in expected]:
        return "answered other records than the listing holds there: a field filter"
    return None


def pair_pages(page: str, size: str, fetch: Fetch, rows: Rows, notes: list[str]) -> Exchange | None:
    """The answer to ``page=1&size=1`` when pages 1 and 2 hold the first two records."""
    first = fetch({page: "1", size: "1"})
    why = why_not(first, rows[:1], len(rows))
    if why is None:
        second = fetch({page: "2", size: "1"})
        why = why_not(second, rows[1:2], len(rows))
        if why is not None and why_not(second, rows[:1], len(rows)) is None:
            why = f"{page}=2 answered the first record again: {page} is ignored"
        elif why is not None:
            why = f"(page 2) {why}"
    # A size the API ignores is the common case for a name it does not know: no note.
    if why is not None and not why.endswith("the size is ignored"):
        notes.append(f"sample: {page}=1&{size}=1 {why}; not paging parameters")
    return first if why is None else None


def size_honoured(size: str, fetch: Fetch, rows: Rows, notes: list[str]) -> Exchange | None:
    """The answer to ``size=1`` when it is the listing's first record alone."""
    answer = fetch({size: "1"})
    why = why_not(answer, rows[:1], len(rows))
    if why is not None:
        notes.append(f"size parameter {size}: {why}")
        return None
    return answer


def header_names(answer: Exchange) -> list[str]:
    """Response header names as the upstream spelled them."""
    return [name.decode("latin-1") for name, _ in answer.headers.raw]


def next_header(answer: Exchange) -> str | None:
    """A header holding the next page (its URL, a cursor, or a page number)."""
    return next(
        (n for n in header_names(answer) if n.lower() != "link" and NEXT_HEADER.search(n)),
        None,
    )


def content_range(answer: Exchange) -> bool:
    return bool(CONTENT_RANGE.match(answer.headers.get("content-range", "")))


def by_range(fetch: Fetch, rows: Rows, notes: list[str]) -> dict[str, Any] | None:
    """Range requests (``Range: items=0-0``) answered by one record and Content-Range."""
    for headers, style in RANGE_FORMS:
        answer = fetch({}, headers=headers)
        spelled = "; ".join(f"{k}: {v}" for k, v in headers.items())
        if why_not(answer, rows[:1], len(rows)) is None and content_range(answer):
            notes.append(f"sample: {spelled} answered one record with Content-Range "
                         f"{answer.headers['content-range']!r}")  # fmt: skip
            return {**style, "items": "", "totalHeader": "Content-Range"}
    return None


def verified_param(
    names: Sequence[str], value: str, fetch: Fetch, extra: Mapping[str, str], seen: Rows
) -> str | None:
    """The first of `names` that, set to `value`, answers records other than `seen`."""
    earlier = {_key(r) for r in seen}
    for name in dict.fromkeys(names):
        got = rows_of(fetch({**extra, name: value}))
        if got and not {_key(r) for r in got} & earlier:
            return name
    return None


def link_param(url: httpx.URL, skip: Collection[str]) -> str | None:
    """The parameter a next URL moves (the first that is not a size)."""
    return next((k for k in url.params if k not in skip), None)
