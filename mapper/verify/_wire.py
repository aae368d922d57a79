"""Every exchange of a run, recorded below the runtime's own client.

The recorder sits where the runtime's `WireTransport` hands requests to the
network, so it sees exactly what the served runtime would send, after base-URL
confinement. It keeps evidence for failures (the request line and a short
excerpt of the answer, never a header and never a credential) and the counts the
report and the benchmark print. Evidence is kept per asyncio task, so checks of
entities verified side by side never cite each other's requests.
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypedDict
from urllib.parse import quote

import httpx

from runtime.mapping import Mapping

REDACTED = "***"
EXCERPT_CHARS = 300
_MIN_SECRET = 6
_KEEP = 64


@dataclass(frozen=True, slots=True)
class Exchange:
    method: str
    target: str
    status: int
    excerpt: str

    @property
    def request(self) -> str:
        return f"{self.method} {self.target}"

    @property
    def response(self) -> str:
        return f"HTTP {self.status}" + (f": {self.excerpt}" if self.excerpt else "")


class Redactor:
    """Removes every form of the mapping's credentials from text we keep."""

    def __init__(self, mapping: Mapping) -> None:
        auth = mapping.upstream.auth
        values = {auth.value or "", auth.password or ""}
        if auth.value:
            values.update(auth.value.split())
        if auth.password:
            basic = f"{auth.username or ''}:{auth.password}".encode()
            values.add(base64.b64encode(basic).decode("ascii"))
        values.update(mapping.upstream.headers.values())
        forms: set[str] = set()
        for value in values:
            if len(value) >= _MIN_SECRET:
                forms |= {value, quote(value, safe=""), quote(value, safe="/:")}
        self._forms = sorted(forms, key=len, reverse=True)
        self._query_param = auth.name if auth.type == "query" else None

    def text(self, text: str) -> str:
        for form in self._forms:
            text = text.replace(form, REDACTED)
        return text

    def target(self, url: httpx.URL) -> str:
        if self._query_param is not None and self._query_param in url.params:
            url = url.copy_set_param(self._query_param, REDACTED)
        query = url.query.decode("ascii", "replace")
        return self.text(url.path + (f"?{query}" if query else ""))


_log: ContextVar[list[Exchange] | None] = ContextVar("a2map_verify_exchanges", default=None)


class Recorder(httpx.AsyncBaseTransport):
    """The inner transport of the runtime's client during a verification."""

    def __init__(self, mapping: Mapping, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner if inner is not None else httpx.AsyncHTTPTransport()
        self._redact = Redactor(mapping)
        prefix = httpx.URL(mapping.upstream.base_url).path.rstrip("/")
        paths = [(prefix + e.path.split("{")[0], name) for name, e in mapping.entities.items()]
        self._paths = sorted(paths, key=lambda p: len(p[0]), reverse=True)
        self.counts: Counter[str] = Counter()
        self.hosts: set[str] = set()

    def entity_of(self, path: str) -> str:
        return next((name for prefix, name in self._paths if path.startswith(prefix)), "(other)")

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.hosts.add(f"{request.url.host}:{request.url.port or ''}")
        self.counts[self.entity_of(request.url.path)] += 1
        response = await self._inner.handle_async_request(request)
        content = await response.aread()
        excerpt = " ".join(content[:4000].decode("utf-8", "replace").split())
        if len(excerpt) > EXCERPT_CHARS:
            excerpt = excerpt[: EXCERPT_CHARS - 1] + "…"
        exchange = Exchange(
            request.method,
            self._redact.target(request.url),
            response.status_code,
            self._redact.text(excerpt),
        )
        log = _log.get()
        if log is not None:
            log.append(exchange)
            del log[:-_KEEP]
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@contextmanager
def scoped() -> Iterator[list[Exchange]]:
    """Evidence for one check: only the exchanges its own task makes from here on."""
    log: list[Exchange] = []
    token = _log.set(log)
    try:
        yield log
    finally:
        _log.reset(token)


def last(method: str | None = None) -> Exchange | None:
    """The latest exchange of this check (of `method`, when given)."""
    for exchange in reversed(_log.get() or []):
        if method is None or exchange.method == method:
            return exchange
    return None


class Evidence(TypedDict):
    request: str | None
    response: str | None


def evidence(method: str | None = None) -> Evidence:
    """`request=` and `response=` keyword arguments for a failure."""
    exchange = last(method)
    if exchange is None:
        return {"request": None, "response": None}
    return {"request": exchange.request, "response": exchange.response}
