"""The last hop before the network: confinement, credentials, and their redaction.

Credentials and mapping headers are added by `WireTransport`, below the httpx
client, so they exist only on the wire copy of a request: the client's own
`Request` (which httpx logs, attaches to exceptions and to responses) never holds
them, and a redirect can never carry them to another host because every request
is checked against the base URL right here, after httpx chose where to send it.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import quote, unquote

import httpx

from runtime.mapping import Upstream

from ._confine import BaseUrl

REDACTED = "***"
# A header value shorter than this is a version or a flag, not a credential;
# redacting it would mangle messages while protecting nothing.
_MIN_HEADER_SECRET = 8
_MIN_SECRET = 4


class Secrets:
    """Every form in which the runtime's credentials could show up in text."""

    def __init__(self, values: set[str]) -> None:
        forms: set[str] = set()
        for value in values:
            if len(value) < _MIN_SECRET:
                continue
            forms |= {value, quote(value, safe=""), quote(value, safe="/:")}
            forms |= _base64_forms(value)
        # Longest first, so a token inside a longer credential is not half-redacted.
        self._forms = sorted(forms, key=len, reverse=True)

    @classmethod
    def of(cls, upstream: Upstream) -> Secrets:
        auth = upstream.auth
        values: set[str] = set()
        if auth.value:
            values.add(auth.value)
            # "Token abc…", "Bearer abc…": the bare token may be echoed on its own.
            values.update(part for part in auth.value.split() if len(part) >= _MIN_HEADER_SECRET)
        if auth.password:
            values.add(auth.password)
            values.add(f"{auth.username or ''}:{auth.password}")
            values.add(_basic(auth.username or "", auth.password))
        values.update(v for v in upstream.headers.values() if len(v) >= _MIN_HEADER_SECRET)
        return cls(values)

    def redact(self, text: str) -> str:
        for form in self._forms:
            text = text.replace(form, REDACTED)
        # A form no list foresees (every byte percent-encoded, encoded twice): what
        # decodes to a secret is withheld whole, since its span cannot be found.
        decoded = text
        for _ in range(2):
            decoded = unquote(decoded)
            if any(form in decoded for form in self._forms):
                return REDACTED
        return text

    def __repr__(self) -> str:
        return f"Secrets({len(self._forms)} forms)"


def _base64_forms(value: str) -> set[str]:
    """A secret as base64 shows it, standard and URL-safe, padded or not: an error page
    that echoes a header it decoded, or a token it encoded, shows it in these forms."""
    raw = value.encode("utf-8")
    forms = set()
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = encoded.decode("ascii")
        forms |= {text, text.rstrip("=")}
    return {form for form in forms if len(form) >= _MIN_SECRET}


def _basic(username: str, password: str) -> str:
    token = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
    return f"Basic {token}"


_HEADER_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")


def _check_header(name: str, value: str) -> None:
    # Refused here, once, without the value: the HTTP library would refuse it on
    # every request with an error that quotes the value, i.e. the credential.
    if not _HEADER_VALUE.fullmatch(value):
        raise ValueError(f"the upstream header {name!r} holds characters HTTP does not allow")


def _strip_control(text: str) -> str:
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)


class WireTransport(httpx.AsyncBaseTransport):
    """Wraps the real transport; refuses URLs outside the base and adds credentials."""

    def __init__(self, inner: httpx.AsyncBaseTransport, upstream: Upstream, base: BaseUrl) -> None:
        self._inner = inner
        self._base = base
        self._headers: dict[str, str] = dict(upstream.headers)
        self._query: tuple[str, str] | None = None
        auth = upstream.auth
        if auth.type == "header" and auth.name and auth.value is not None:
            self._headers[auth.name] = auth.value
        elif auth.type == "bearer" and auth.value is not None:
            value = auth.value if auth.value.startswith("Bearer ") else f"Bearer {auth.value}"
            self._headers[auth.name or "Authorization"] = value
        elif auth.type == "basic":
            self._headers["Authorization"] = _basic(auth.username or "", auth.password or "")
        elif auth.type == "query" and auth.name and auth.value is not None:
            self._query = (auth.name, auth.value)
        for name, value in self._headers.items():
            _check_header(name, value)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._base.check(request.url)
        url = request.url
        if self._query is not None:
            # Set, not add: a next link may already echo the key back to us.
            url = url.copy_set_param(*self._query)
        headers = request.headers.copy()
        for name, value in self._headers.items():
            headers[name] = value
        wire = httpx.Request(
            request.method, url, headers=headers, stream=request.stream,
            extensions=request.extensions,
        )  # fmt: skip
        return await self._inner.handle_async_request(wire)

    async def aclose(self) -> None:
        await self._inner.aclose()


def clean_text(text: str, secrets: Secrets, limit: int = 200) -> str:
    """One line of foreign text, safe to show: no secrets, no control characters, short."""
    text = secrets.redact(_strip_control(text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
