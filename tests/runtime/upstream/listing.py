"""A fake collection served in each pagination style, as real upstreams do it."""

from __future__ import annotations

from typing import Any

import httpx

from runtime.mapping import Pagination

from .support import BASE

STYLES: dict[str, Pagination] = {
    "page": Pagination(style="page", page="page", size="page_size", items=("results",),
                       total=("count",), next=("next",), max_size=50),
    "offset": Pagination(style="offset", offset="offset", size="limit", items=("items",),
                         total=("total",), max_size=50),
    "cursor": Pagination(style="cursor", cursor="after", size="size", items=("data",),
                         next=("meta", "next"), max_size=50),
    "link": Pagination(style="link", page="_page", size="_limit", total_header="X-Total-Count",
                       max_size=50),
    "none": Pagination(style="none"),
    "page-bare": Pagination(style="page", page="page", size="per_page", max_size=50),
}  # fmt: skip


class Listing:
    """`count` records with ids 1..count; `cap` is the server's real page size limit."""

    def __init__(self, style: str, count: int, *, cap: int = 1000) -> None:
        self.style = style
        self.records = [{"id": i, "title": f"card {i}"} for i in range(1, count + 1)]
        self.cap = cap

    def _slice(self, start: int, size: int) -> list[dict[str, Any]]:
        return self.records[start : start + min(size, self.cap)]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        q = request.url.params
        n = len(self.records)
        url = request.url
        if self.style == "page":
            size, page = min(int(q.get("page_size", "10")), self.cap), int(q.get("page", "1"))
            if page > 1 and (page - 1) * size >= n:
                return httpx.Response(404, json={"detail": "Invalid page."})
            more = page * size < n
            nxt = str(url.copy_merge_params({"page": str(page + 1)})) if more else None
            items = self._slice((page - 1) * size, size)
            return httpx.Response(200, json={"count": n, "next": nxt, "results": items})
        if self.style == "page-bare":
            size, page = min(int(q.get("per_page", "10")), self.cap), int(q.get("page", "1"))
            return httpx.Response(200, json=self._slice((page - 1) * size, size))
        if self.style == "offset":
            items = self._slice(int(q.get("offset", "0")), int(q.get("limit", "10")))
            return httpx.Response(200, json={"items": items, "total": n})
        if self.style == "cursor":
            start = int(q.get("after", "c0")[1:])
            items = self._slice(start, int(q.get("size", "10")))
            end = start + len(items)
            return httpx.Response(
                200, json={"data": items, "meta": {"next": f"c{end}" if end < n else None}}
            )
        if self.style == "link":
            size, page = min(int(q.get("_limit", "10")), self.cap), int(q.get("_page", "1"))
            headers = {"X-Total-Count": str(n)}
            if page * size < n:
                following = url.copy_merge_params({"_page": str(page + 1)})
                headers["Link"] = f'<{BASE}/api/cards/?{following.query.decode()}>; rel="next"'
            return httpx.Response(200, json=self._slice((page - 1) * size, size), headers=headers)
        return httpx.Response(200, json=self.records)
