"""The records of one collection, paged as real APIs page, one style per path prefix.

``/<style>/items`` lists and ``/<style>/items/{id}`` reads one record. Without paging
parameters a listing answers its first 10 records (except ``filter-trap``, which
answers all). Each style answers exactly as the APIs it stands for:

- ``page-header``: ``page``/``per_page``, ``X-Next-Page: 3`` (empty on the last page)
  and ``X-Total`` (GitLab).
- ``cursor-header``: ``limit``, an opaque ``after`` cursor in ``X-Next-Cursor``.
- ``next-url-header``: ``limit``/``starting_after``, the next URL in ``X-Next-Page``.
- ``offset-content-range``: ``skip``/``limit``, ``Content-Range: items 0-9/35``.
- ``range``: ``Range: items=0-9`` answered 206 with ``Content-Range``; 416 past the end.
- ``range-unit``: ``Range-Unit: items`` with ``Range: 0-9`` (PostgREST's spelling).
- ``offset-total-body``: ``offset``/``limit``, ``{"items": [...], "total": 35}``.
- ``cursor-body``: ``{"data": [...], "next_cursor": "..."}`` with ``cursor``/``limit``.
- ``filter-trap``: every query parameter but ``_page``/``_per_page`` is a field filter
  (``_limit=1`` answers ``[]``), and ``_page`` answers ``{first, prev, next, last, pages,
  items, data}`` whose ``next`` is a page number (json-server 1.0-beta).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

COUNT = 35
DEFAULT_SIZE = 10
RECORDS = [{"id": f"i{n:02d}", "title": f"item {n}", "done": n % 3 == 0} for n in range(1, 36)]
Handler = Callable[[Request], Response]


def _int(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name, "")
    return int(value) if value.isdigit() else default


def _token(position: int) -> str:
    return base64.urlsafe_b64encode(f"pos:{position}".encode()).decode()


def _position(token: str | None) -> int:
    if not token:
        return 0
    try:
        return int(base64.urlsafe_b64decode(token.encode()).decode().split(":")[1])
    except (ValueError, IndexError):
        return COUNT  # an unknown cursor lists nothing


def page_header(request: Request) -> Response:
    page, size = _int(request, "page", 1), _int(request, "per_page", DEFAULT_SIZE)
    rows = RECORDS[(page - 1) * size : page * size]
    more = page * size < COUNT
    headers = {"X-Next-Page": str(page + 1) if more else "", "X-Total": str(COUNT)}
    return JSONResponse(rows, headers=headers)


def cursor_header(request: Request) -> Response:
    start, size = _position(request.query_params.get("after")), _int(request, "limit", 10)
    rows = RECORDS[start : start + size]
    more = start + size < COUNT
    return JSONResponse(rows, headers={"X-Next-Cursor": _token(start + size)} if more else {})


def next_url_header(request: Request) -> Response:
    after = request.query_params.get("starting_after")
    start = next((i + 1 for i, r in enumerate(RECORDS) if r["id"] == after), 0)
    size = _int(request, "limit", DEFAULT_SIZE)
    rows = RECORDS[start : start + size]
    headers = {}
    if start + size < COUNT and rows:
        following = request.url.include_query_params(starting_after=rows[-1]["id"])
        headers["X-Next-Page"] = str(following)
    return JSONResponse(rows, headers=headers)


def offset_content_range(request: Request) -> Response:
    start, size = _int(request, "skip", 0), _int(request, "limit", DEFAULT_SIZE)
    rows = RECORDS[start : start + size]
    shown = f"{start}-{start + len(rows) - 1}" if rows else "*"
    return JSONResponse(rows, headers={"Content-Range": f"items {shown}/{COUNT}"})


def _ranged(request: Request, unit_header: bool) -> Response:
    asked = request.headers.get("range", "")
    form = r"(\d+)-(\d+)" if unit_header else r"items=(\d+)-(\d+)"
    found = re.fullmatch(form, asked)
    if found is None or (unit_header and request.headers.get("range-unit") != "items"):
        rows = RECORDS[:DEFAULT_SIZE]
        return JSONResponse(rows, headers={"Content-Range": f"0-{len(rows) - 1}/{COUNT}"})
    start, last = int(found.group(1)), int(found.group(2))
    if start >= COUNT:
        return Response(status_code=416, headers={"Content-Range": f"*/{COUNT}"})
    rows = RECORDS[start : last + 1]
    unit = "" if unit_header else "items "
    shown = f"{unit}{start}-{start + len(rows) - 1}/{COUNT}"
    return JSONResponse(rows, status_code=206, headers={"Content-Range": shown})


def range_items(request: Request) -> Response:
    return _ranged(request, unit_header=False)


def range_unit(request: Request) -> Response:
    return _ranged(request, unit_header=True)


def offset_total_body(request: Request) -> Response:
    start, size = _int(request, "offset", 0), _int(request, "limit", DEFAULT_SIZE)
    return JSONResponse({"items": RECORDS[start : start + size], "total": COUNT})


def cursor_body(request: Request) -> Response:
    start, size = _position(request.query_params.get("cursor")), _int(request, "limit", 10)
    rows = RECORDS[start : start + size]
    following = _token(start + size) if start + size < COUNT else None
    return JSONResponse({"data": rows, "next_cursor": following})


def filter_trap(request: Request) -> Response:
    params = {k: v for k, v in request.query_params.items() if k not in ("_page", "_per_page")}
    rows = [r for r in RECORDS if all(str(r.get(k)).lower() == v for k, v in params.items())]
    if "_page" not in request.query_params:
        return JSONResponse(rows)
    page, size = _int(request, "_page", 1), _int(request, "_per_page", DEFAULT_SIZE)
    pages = max(1, -(-len(rows) // size))
    body: dict[str, Any] = {
        "first": 1, "prev": page - 1 or None, "next": page + 1 if page < pages else None,
        "last": pages, "pages": pages, "items": len(rows),
        "data": rows[(page - 1) * size : page * size],
    }  # fmt: skip
    return JSONResponse(body)


STYLES: dict[str, Handler] = {
    "page-header": page_header,
    "cursor-header": cursor_header,
    "next-url-header": next_url_header,
    "offset-content-range": offset_content_range,
    "range": range_items,
    "range-unit": range_unit,
    "offset-total-body": offset_total_body,
    "cursor-body": cursor_body,
    "filter-trap": filter_trap,
}


def _listing(handler: Handler) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        return handler(request)

    return endpoint


async def one(request: Request) -> Response:
    found = [r for r in RECORDS if r["id"] == request.path_params["id"]]
    if not found:
        return JSONResponse({"detail": "Not found."}, status_code=404)
    return JSONResponse(found[0])


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True})


routes = [Route("/health", health)]
for name, handler in STYLES.items():
    routes.append(Route(f"/{name}/items", _listing(handler)))
    routes.append(Route(f"/{name}/items/{{id}}", one))
app = Starlette(routes=routes)
