"""The prober's only way out: read-only by construction, confined to the base URL.

`ReadOnlyTransport` is the last hop before the network. It refuses every method
but GET, HEAD and OPTIONS and every URL outside the upstream base (redirects
included, since httpx hands each hop to the transport), and it adds the
credentials to the wire copy of a request only. Nothing above it can send a
write, whatever a bug there does.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from runtime.protocol import ProtocolError
from runtime.upstream import BaseUrl, translating

from .._errors import RefusedRequest, UnreachableError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_BODY = 32 * 1024 * 1024
_ANONYMOUS = "a2map.anonymous"
_FAILURES = {"upstream_timeout": "timeout", "upstream_unavailable": "unavailable"}
_BINARY = ("application/octet-stream", "application/pdf", "application/zip", "image/", "audio/")


class OutsideUpstream(RefusedRequest):
    """A URL outside the base (a redirect or a link the upstream sent)."""


class ReadOnlyTransport(httpx.BaseTransport):
    def __init__(
        self, inner: httpx.BaseTransport, base: BaseUrl, headers: Mapping[str, str]
    ) -> None:
        self._inner = inner
        self._base = base
        self._headers = dict(headers)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method.upper() not in SAFE_METHODS:
            raise RefusedRequest(f"the prober never sends {request.method} requests")
        if not self._base.contains(request.url):
            raise OutsideUpstream(f"refused a request outside the upstream ({request.url.host})")
        headers = request.headers.copy()
        if not request.extensions.get(_ANONYMOUS):
            for name, value in self._headers.items():
                headers[name] = value
        wire = httpx.Request(
            request.method, request.url, headers=headers, stream=request.stream,
            extensions=request.extensions,
        )  # fmt: skip
        return self._inner.handle_request(wire)

    def close(self) -> None:
        self._inner.close()


@dataclass(frozen=True, slots=True)
class Exchange:
    """One answer, classified; `failure` is set when there was none."""

    method: str
    path: str
    status: int = 0
    kind: str = "none"  # json | html | binary | text | empty | none
    body: Any = None
    text: str | None = None
    headers: httpx.Headers = field(default_factory=httpx.Headers)
    url: httpx.URL | None = None
    links: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # No answer: the runtime's own translation of the failed exchange, so the probe and
    # the runtime name a timeout or a refused connection alike.
    error: ProtocolError | None = None
    outside: bool = False

    @property
    def failure(self) -> str | None:
        """Why there was no answer, in a word: what findings and messages say."""
        if self.outside:
            return "outside-upstream"
        if self.error is None:
            return None
        return _FAILURES.get(self.error.code, "failed")

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def content_type(self) -> str:
        ctype: str = self.headers.get("content-type", "")
        return ctype.split(";", 1)[0].strip().lower()


def classify(response: httpx.Response) -> tuple[str, Any, str | None]:
    content = response.content[:MAX_BODY]
    ctype = response.headers.get("content-type", "").lower()
    if not content.strip():
        return "empty", None, None
    if any(mark in ctype for mark in _BINARY):
        return "binary", None, None
    text = content.decode("utf-8", "replace")
    if "html" in ctype or text.lstrip()[:15].lower().startswith(("<!doctype html", "<html")):
        return "html", None, text
    if "json" in ctype or not ctype:
        try:
            return "json", json.loads(content), text
        except (ValueError, UnicodeDecodeError):
            return "text", None, text
    return "text", None, text


class ProbeClient:
    """GET and OPTIONS under one base URL; counts what it sent."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.base = BaseUrl(base_url)
        self.sent: Counter[str] = Counter()
        # Answers refusing the credentials the probe was given (401/403): when nothing
        # else could be read, they say the probe needs (other) credentials.
        self.refused: list[Exchange] = []
        # The paths that answered 2xx to the prober's credentials.
        self.answered: set[str] = set()
        inner = transport if transport is not None else httpx.HTTPTransport()
        self._http = httpx.Client(
            transport=ReadOnlyTransport(inner, self.base, headers),
            timeout=httpx.Timeout(timeout),
            headers={"Accept": "application/json"},
            follow_redirects=True,
            max_redirects=5,
            # Proxies and .netrc credentials from the environment would change where
            # requests go and what they carry.
            trust_env=False,
        )

    def close(self) -> None:
        self._http.close()

    def url(self, path: str) -> httpx.URL:
        """A path relative to the base (``/api/cards/``), under the base path."""
        prefix = self.base.url.path.rstrip("/")
        raw, _, query = path.partition("?")
        url = self.base.url.copy_with(raw_path=(prefix + "/" + raw.lstrip("/")).encode())
        return url.copy_with(query=query.encode()) if query else url

    def resolve(self, link: str, relative_to: httpx.URL | None = None) -> httpx.URL | None:
        """A link the upstream sent, or None when it points outside the upstream."""
        try:
            url = (relative_to or self.base.url).join(link.strip())
        except (httpx.InvalidURL, ValueError):
            return None
        return url if self.base.contains(url) else None

    def relative(self, url: httpx.URL) -> str:
        """The path of a URL under the base, as mapping paths are written."""
        prefix = self.base.url.path.rstrip("/")
        path = url.path[len(prefix) :] if url.path.startswith(prefix) else url.path
        return path if path.startswith("/") else "/" + path

    def get(
        self,
        target: str | httpx.URL,
        params: Mapping[str, str] | None = None,
        *,
        anonymous: bool = False,
        accept: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Exchange:
        return self._send(
            "GET", target, params, anonymous=anonymous, accept=accept, headers=headers
        )

    def options(self, target: str | httpx.URL) -> Exchange:
        return self._send("OPTIONS", target, None)

    def reach(self) -> Exchange:
        """The base URL answers at all (any status); otherwise the probe cannot start."""
        answer = self.get("/")
        if answer.error is not None and answer.error.unreachable:
            raise UnreachableError(
                f"the upstream {self.base.url} does not answer ({answer.failure})"
            )
        return answer

    def _send(
        self,
        method: str,
        target: str | httpx.URL,
        params: Mapping[str, str] | None,
        *,
        anonymous: bool = False,
        accept: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Exchange:
        url = target if isinstance(target, httpx.URL) else self.url(target)
        if params:
            url = url.copy_merge_params(dict(params))
        path = self.relative(url)
        # Extra headers ask for a part of a listing (Range); they never change the method.
        headers = {**({"Accept": accept} if accept else {}), **(headers or {})} or None
        self.sent[method] += 1
        try:
            with translating(f"{method} {path}"):
                response = self._http.request(
                    method, url, headers=headers, extensions={_ANONYMOUS: anonymous}
                )
        except OutsideUpstream:
            return Exchange(method, path, outside=True)
        except ProtocolError as error:
            return Exchange(method, path, error=error)
        kind, body, text = classify(response)
        links = {str(rel): link for rel, link in response.links.items() if rel}
        answer = Exchange(
            method, path, response.status_code, kind, body, text, response.headers,
            response.url, links,
        )  # fmt: skip
        if response.status_code in (401, 403) and not anonymous:
            self.refused.append(answer)
        elif answer.ok and not anonymous:
            self.answered.add(path)
        return answer
