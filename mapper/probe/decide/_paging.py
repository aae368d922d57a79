"""How the upstream pages, from one list answer, the spec's parameters and a size probe.

answer                                         style
├─ Link: <…>; rel="next"  ─────────────────── link (page/size from that URL)
├─ bare array, a page+size pair honoured ───── link if Link appears, else page
├─ bare array, nothing honoured ────────────── none (one request answers all)
├─ envelope, next is a URL with offset= ────── offset
├─ envelope, next is a URL with page= ──────── page
├─ envelope, next is a URL with another key ── cursor (that key)
├─ envelope, next is an opaque string ──────── cursor
├─ envelope, a cursor parameter, no next, ──── cursor from the last record's id
│  a more flag (has_more)                      (nextFrom: id, more: has_more)
└─ envelope, no next yet ───────────────────── from the spec's parameters, else page
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from ..live import (
    NEXT_KEYS,
    TOTAL_KEYS,
    Envelope,
    dig,
    envelope_of,
    has_ids,
    last_record,
    records_of,
)
from ._pageprobe import (
    Rows,
    by_range,
    content_range,
    link_param,
    next_header,
    pair_pages,
    size_honoured,
    verified_param,
    why_not,
)

if TYPE_CHECKING:
    import httpx

    from ..live import Exchange

PAGE_NAMES = ("page", "_page", "page[number]", "pageNumber")
SIZE_NAMES = (
    "page_size",
    "per_page",
    "perPage",
    "_limit",
    "limit",
    "page[size]",
    "pageSize",
    "size",
    "_per_page",
)
OFFSET_NAMES = ("offset", "_start", "skip", "start", "page[offset]")
CURSOR_NAMES = ("cursor", "after", "page[after]", "starting_after", "page_token", "pageToken")
# Tried in this order on a bare array; json-server first, as it reads unknown names as filters.
BARE_PAIRS = (("_page", "_limit"), ("page", "per_page"), ("page", "page_size"), ("page", "limit"),
              ("_page", "_per_page"))  # fmt: skip
TOTAL_HEADERS = ("X-Total-Count", "Total-Count", "X-Total")

Fetch: TypeAlias = "Callable[[Mapping[str, str]], Exchange]"


@dataclass(slots=True)
class Paging:
    pagination: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    envelope: Envelope | None = None
    # Why the listing pages in a way the mapping cannot walk (the lists that page are
    # then refused with reason `paging`, never read as their first page).
    refused: str | None = None


def _count(answer: Exchange) -> int | None:
    if not answer.ok:
        return None
    envelope = envelope_of(answer.body, answer.content_type)
    return None if envelope is None else len(records_of(answer.body, envelope))


def _total_header(answer: Exchange) -> str | None:
    found = next((h for h in TOTAL_HEADERS if h in answer.headers), None)
    return found or ("Content-Range" if content_range(answer) else None)


def _first(names: Collection[str], within: Collection[str]) -> str | None:
    return next((n for n in names if n in within), None)


def _next_link(answer: Exchange) -> httpx.URL | None:
    link = answer.links.get("next", {}).get("url")
    if not link or answer.url is None:
        return None
    return answer.url.join(link)


def _confirm_size(param: str, fetch: Fetch, rows: Rows, notes: list[str]) -> bool:
    if len(rows) < 2:
        notes.append(f"size parameter {param}: not tried (fewer than two records)")
        return False
    honoured = size_honoured(param, fetch, rows, notes) is not None
    if honoured:
        notes.append(f"size parameter {param}: honoured (sample: asked one record, got one)")
    return honoured


def _bare(answer: Exchange, spec: Collection[str], fetch: Fetch, records: int) -> Paging:
    notes = ["sample: the list answer is a bare JSON array"]
    total = _total_header(answer)
    if total:
        notes.append(f"sample: {total} header holds the total")
    link = _next_link(answer)
    pairs = list(BARE_PAIRS)
    page, size = _first(PAGE_NAMES, spec), _first(SIZE_NAMES, spec)
    if page and size:
        pairs.insert(0, (page, size))
    rows = records_of(answer.body, Envelope(""))
    if link is None and records >= 2:
        for page, size in dict.fromkeys(pairs):
            tried = pair_pages(page, size, fetch, rows, notes)
            if tried is not None:
                notes.append(f"sample: {page}=1&{size}=1 answered one record")
                link = _next_link(tried)
                total = total or _total_header(tried)
                style = "link" if link is not None else "page"
                # A page asked for may come in an envelope the bare list lacks (json-server 1.0).
                paged = envelope_of(tried.body, tried.content_type) or Envelope("")
                found: dict[str, Any] = {"style": style, "page": page, "size": size,
                                         "items": paged.items}  # fmt: skip
                if paged.items:
                    notes.append(f"sample: a page asked for holds its records under "
                                 f"{paged.items!r}")  # fmt: skip
                    found.update({k: v for k, v in (("total", paged.total),
                                  ("next", paged.next)) if v})  # fmt: skip
                if total:
                    found["totalHeader"] = total
                if link is None and (header := next_header(tried)) is not None:
                    notes.append(f"sample: {header} header says whether a next page follows")
                    found["nextHeader"] = header
                if link is not None:
                    notes.append('sample: Link rel="next" header once a page is asked for')
                return Paging(found, notes, Envelope(""))
        headed = by_headers(spec, fetch, rows, notes)
        if headed is not None:
            if total and "totalHeader" not in headed:
                headed["totalHeader"] = total
            return Paging(headed, notes, Envelope(""))
    if link is not None:
        query = link.params
        found = {"style": "link", "items": ""}
        if name := _first(PAGE_NAMES, query):
            found["page"] = name
        if name := _first(SIZE_NAMES, query):
            found["size"] = name
        if total:
            found["totalHeader"] = total
        notes.append('sample: Link rel="next" header')
        return Paging(found, notes, Envelope(""))
    notes.append("no page parameter was honoured: one request is taken to answer everything")
    return Paging({"style": "none", "items": ""}, notes, Envelope(""))


def by_headers(
    spec: Collection[str], fetch: Fetch, rows: Rows, notes: list[str]
) -> dict[str, Any] | None:
    """A bare array whose paging shows only in headers: a size parameter honoured, then
    a next header (URL, cursor or page number) or an offset; else range requests."""
    quiet: list[str] = []  # a size that is not honoured is the common case: no note
    declared = [n for n in SIZE_NAMES if n in spec]
    for size in declared:
        if (tried := size_honoured(size, fetch, rows, quiet)) is not None:
            return _sized(size, tried, spec, fetch, rows, notes)
    if (ranged := by_range(fetch, rows, notes)) is not None:
        return ranged
    for size in (n for n in SIZE_NAMES if n not in declared):
        if (tried := size_honoured(size, fetch, rows, quiet)) is not None:
            return _sized(size, tried, spec, fetch, rows, notes)
    return None


def _sized(
    size: str, tried: Exchange, spec: Collection[str], fetch: Fetch, rows: Rows,
    notes: list[str],
) -> dict[str, Any] | None:  # fmt: skip
    notes.append(f"size parameter {size}: honoured (sample: asked one record, got one)")
    found: dict[str, Any] = {"size": size, "items": ""}
    if (total := _total_header(tried)) is not None:
        found["totalHeader"] = total
    header = next_header(tried)
    value = tried.headers.get(header, "").strip() if header else ""
    if header and value.startswith(("http://", "https://", "/", "?")):
        import httpx  # an answer's URLs: loaded with the live half that made it

        url = (tried.url or httpx.URL("http://upstream/")).join(value)
        notes.append(f"sample: {header} header holds the next page's URL")
        param = link_param(url, SIZE_NAMES) or "cursor"
        return {**found, "style": "cursor", "cursor": param, "nextHeader": header}
    if header and value.isdigit():
        names = [*(n for n in PAGE_NAMES if n in spec), *PAGE_NAMES]
        page = verified_param(names, value, fetch, {size: "1"}, rows[:1])
        if page is not None:
            notes.append(f"sample: {header} header names the next page; {page}={value} "
                         "answered the next record")  # fmt: skip
            return {**found, "style": "page", "page": page, "nextHeader": header}
    elif header and value:
        names = [*(n for n in CURSOR_NAMES if n in spec), *CURSOR_NAMES]
        cursor = verified_param(names, value, fetch, {size: "1"}, rows[:1])
        if cursor is not None:
            notes.append(f"sample: {header} header holds the next cursor; {cursor}=<it> "
                         "answered the next record")  # fmt: skip
            return {**found, "style": "cursor", "cursor": cursor, "nextHeader": header}
    for offset in dict.fromkeys([*(n for n in OFFSET_NAMES if n in spec), *OFFSET_NAMES]):
        second = fetch({offset: "1", size: "1"})
        if why_not(second, rows[1:2], len(rows)) is None:
            notes.append(f"sample: {offset}=1&{size}=1 answered the second record")
            return {**found, "style": "offset", "offset": offset}
    notes.append(f"size parameter {size} pages, but no page, offset or cursor was found")
    return None


def _numbered(
    spec: Collection[str], fetch: Fetch, rows: Rows, notes: list[str]
) -> tuple[str, str, str] | None:
    """(style, parameter, size) of an envelope showing no next page and a spec naming no
    page parameter: a size honoured, then an offset or page that answers the second
    record. Never assumed: None when the answers show none."""
    if _first(PAGE_NAMES, spec) or len(rows) < 2:
        return None
    quiet: list[str] = []
    for size in SIZE_NAMES:
        if size_honoured(size, fetch, rows, quiet) is None:
            continue
        for name, value, style in [*((n, "1", "offset") for n in OFFSET_NAMES),
                                   *((n, "2", "page") for n in PAGE_NAMES)]:  # fmt: skip
            if why_not(fetch({name: value, size: "1"}), rows[1:2], len(rows)) is None:
                notes.append(f"sample: {name}={value}&{size}=1 answered the second record")
                return style, name, size
        return None
    return None


def _from_next(value: Any, answer: Exchange) -> tuple[str, str | None] | None:
    """(style, param) from the body's next value; None when there is no next yet."""
    if value is None or value == "" or value is False:
        return None
    if (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and value.isdigit()
    ):
        return "page", None  # the next page's number (json-server 1.0): its name is probed
    if isinstance(value, str) and value.startswith(("http://", "https://", "/", "?")):
        import httpx  # an answer's URLs: loaded with the live half that made it

        base = answer.url or httpx.URL("http://upstream/")
        query = base.join(value).params
        if name := _first(OFFSET_NAMES, query):
            return "offset", name
        if name := _first(PAGE_NAMES, query):
            return "page", name
        opaque = [k for k in query if k not in SIZE_NAMES]
        return ("cursor", _first(CURSOR_NAMES, opaque) or (opaque[0] if opaque else None))
    return "cursor", None


def _envelope(
    answer: Exchange, envelope: Envelope, spec: Collection[str], fetch: Fetch, records: int
) -> Paging:
    notes = [f"sample: records under {envelope.items!r}"]
    found: dict[str, Any] = {"items": envelope.items}
    nxt = dig(answer.body, envelope.next) if envelope.next else None
    decided = _from_next(nxt, answer)
    rows = records_of(answer.body, envelope)
    param: str | None
    if decided == ("page", None):
        names = [*(n for n in PAGE_NAMES if n in spec), *PAGE_NAMES]
        found_name = verified_param(names, str(nxt), fetch, {}, rows)
        if found_name is None:
            why = (f"{envelope.next!r} names page {nxt}, but no page parameter "
                   f"({', '.join(dict.fromkeys(names))}) answered other records")  # fmt: skip
            notes.append(f"sample: {why}")
            return Paging({"style": "none", "items": envelope.items}, notes, envelope, why)
        notes.append(f"sample: {envelope.next!r} names the next page number; "
                     f"{found_name}={nxt} answered the records after the first page")  # fmt: skip
        style, param = "page", found_name
    elif decided is not None:
        style, param = decided
        notes.append(f"sample: {envelope.next!r} names the next {style}")
    elif name := _first(OFFSET_NAMES, spec):
        style, param = "offset", name
        notes.append(f"spec: offset parameter {name}")
    elif name := _first(CURSOR_NAMES, spec):
        style, param = "cursor", name
        notes.append(f"spec: cursor parameter {name}")
    elif (numbered := _numbered(spec, fetch, rows, notes)) is not None:
        style, param, found["size"] = numbered
    else:
        default = "page[number]" if envelope.jsonapi else "page"
        style, param = "page", _first(PAGE_NAMES, [*spec, *envelope.keys]) or default
        notes.append(f"page parameter {param}: " + ("from the spec" if param in spec
                     else "assumed, not seen (no next page in the samples)"))  # fmt: skip
    found["style"] = style
    key = {"page": "page", "offset": "offset", "cursor": "cursor"}[style]
    if param:
        found[key] = param
    elif style == "cursor":
        found["cursor"] = _first(CURSOR_NAMES, spec) or "cursor"
        notes.append(f"cursor parameter {found['cursor']}: assumed")
    import httpx  # an answer's URLs: loaded with the live half that made it

    link = httpx.URL(nxt) if isinstance(nxt, str) and "://" in nxt else None
    size = _first(SIZE_NAMES, [*spec, *(link.params if link else ())])
    size = size or ("perPage" if "perPage" in envelope.keys else None)
    if "size" in found:
        pass  # probed with its page or offset parameter
    elif (size and _confirm_size(size, fetch, rows, notes)) or (size and style == "offset"):
        found["size"] = size
    if style == "offset" and "size" not in found:
        found["size"] = "limit"
        notes.append("size parameter limit: assumed (offset paging needs one)")
    if envelope.total:
        found["total"] = envelope.total
        notes.append(f"sample: {envelope.total!r} holds the total")
    if envelope.next:
        found["next"] = envelope.next
    elif style == "cursor":
        ids = "id" if has_ids(records_of(answer.body, envelope)) else None
        if (last := last_record(envelope.keys, ids)) is None:
            return Paging({"style": "none", "items": envelope.items}, [
                *notes, "cursor paging without a next value in the body cannot be walked"
            ], envelope)  # fmt: skip
        found.update(last)
        notes.append(f"sample: {last['more']!r} says more follow; the cursor is the last id")
    return Paging(found, notes, envelope)


def infer(answer: Exchange, spec_params: Collection[str], fetch: Fetch) -> Paging | None:
    """The pagination of one list route, or None when its answer is not a list."""
    envelope = envelope_of(answer.body, answer.content_type) if answer.ok else None
    if envelope is None:
        return None
    records = len(records_of(answer.body, envelope))
    if envelope.items == "":
        return _bare(answer, spec_params, fetch, records)
    return _envelope(answer, envelope, spec_params, fetch, records)


def spec_paging(
    items: str, keys: Collection[str], params: Collection[str], id_field: str | None = None
) -> Paging:
    """Without a live answer: the paging the spec's list schema and parameters describe.

    `id_field` is the records' id: with a more flag and no next key, the last
    record's id is the next cursor."""
    notes = [f"spec: records under {items!r}" if items else "spec: the list is a bare array"]
    found: dict[str, Any] = {"items": items}
    if name := _first(OFFSET_NAMES, params):
        found.update(style="offset", offset=name, size=_first(SIZE_NAMES, params) or "limit")
    elif (name := _first(CURSOR_NAMES, params)) and _first(NEXT_KEYS, keys):
        found.update(style="cursor", cursor=name)
    elif (name := _first(CURSOR_NAMES, params)) and (last := last_record(keys, id_field)):
        found.update(style="cursor", cursor=name, **last)
        if size := _first(SIZE_NAMES, params):
            found["size"] = size
        notes.append(f"spec: {last['more']!r} says more follow; the cursor is the last {id_field}")
    elif name := _first(PAGE_NAMES, params):
        found.update(style="page", page=name)
        if size := _first(SIZE_NAMES, params):
            found["size"] = size
    else:
        found["style"] = "none"
    notes.append(f"spec: query parameters give style {found['style']}")
    if total := _first(TOTAL_KEYS, keys):
        found["total"] = total
    if found["style"] != "none" and (nxt := _first(NEXT_KEYS, keys)):
        found["next"] = nxt
    return Paging(found, notes)


def body_paging(items: str, body: Collection[str], keys: Collection[str] = ()) -> Paging:
    """The paging of a POST listing, from the properties its JSON body declares (and
    the keys of its answer's envelope: a total, a next value)."""
    found: dict[str, Any] = {"items": items}
    offset, size, page = _first(OFFSET_NAMES, body), _first(SIZE_NAMES, body), None
    if offset and size:
        found.update(style="offset", offset=offset, size=size)
    elif page := _first(PAGE_NAMES, body):
        found.update(style="page", page=page, **({"size": size} if size else {}))
    else:
        found["style"] = "none"
    names = ", ".join(n for n in (offset, page, size) if n) or "no paging property"
    if items and found["style"] != "none" and (total := _first(TOTAL_KEYS, keys)):
        found["total"] = total
    return Paging(found, [f"spec: the POST body declares {names}: style {found['style']}"])
