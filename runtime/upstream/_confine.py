"""Base-URL confinement: the runtime contacts the configured upstream and nothing else.

Every URL the client builds (mapping paths) or receives (``next`` links, ``Link``
headers, redirects) passes through `BaseUrl` before a request leaves; a URL with
another scheme, host or port, or outside the base path, is refused, never followed.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

import httpx

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Paths kept joined: a write and its read-back join the same detail path, and building
# an `httpx.URL` costs more than the rest of a join. Cleared when full, so any number
# of record ids keeps it bounded.
_JOINED = 512
# Everything ASCII shows as itself; what httpx cannot take raw (non-ASCII, spaces,
# controls) is percent-encoded, and an escape already there is kept.
_KEPT = "".join(chr(c) for c in range(0x21, 0x7F))


class OutsideUpstream(Exception):
    """A URL that is not under the upstream's base URL; carries only its host."""

    def __init__(self, host: str) -> None:
        self.host = host
        super().__init__(f"a link outside the upstream ({host or 'no host'}) was refused")


def _port(url: httpx.URL) -> int | None:
    return url.port or _DEFAULT_PORTS.get(url.scheme)


def _has_dot_segment(path: str) -> bool:
    # httpx removes literal dot segments, but an encoded `%2e%2e` survives and a
    # server may decode it into a step out of the base path.
    if "." not in path and "%" not in path:
        return False  # most paths: no segment can be (or decode to) a dot
    return any(unquote(part) in (".", "..") for part in path.split("/"))


class BaseUrl:
    """The upstream's base URL and the two ways of reaching something under it."""

    def __init__(self, base_url: str) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in _DEFAULT_PORTS or not url.host:
            raise ValueError("the upstream base URL must be an absolute http(s) URL")
        self.url = url.copy_with(query=None, fragment=None)
        self._prefix = self.url.path.rstrip("/")
        self._joined: dict[str, httpx.URL] = {}

    def join(self, path: str) -> httpx.URL:
        """A mapping path (``/api/cards/``) appended to the base path, confined."""
        url = self._joined.get(path)
        if url is None:
            url = self._join(path)  # a refused path raises, and is never kept
            if len(self._joined) >= _JOINED:
                self._joined.clear()
            self._joined[path] = url
        return url

    def _join(self, path: str) -> httpx.URL:
        if "://" in path or path.startswith("//"):
            # Mapping paths are relative by contract; an absolute one is a mapping bug
            # that must not turn into a request to another host.
            raise OutsideUpstream(httpx.URL(path if "://" in path else "http:" + path).host)
        raw_path, _, query = quote(path, safe=_KEPT).partition("?")
        url = self.url.copy_with(raw_path=(self._prefix + "/" + raw_path.lstrip("/")).encode())
        if query:
            url = url.copy_with(query=query.encode())
        self.check(url)
        return url

    def follow(self, link: str, relative_to: httpx.URL) -> httpx.URL:
        """A link the upstream sent, resolved as a browser would (RFC 3986), confined."""
        try:
            url = relative_to.join(link.strip())
        except (httpx.InvalidURL, ValueError):
            raise OutsideUpstream("") from None
        self.check(url)
        return url

    def contains(self, url: httpx.URL) -> bool:
        if url.scheme != self.url.scheme or url.host != self.url.host:
            return False
        if _port(url) != _port(self.url):
            return False
        if _has_dot_segment(url.raw_path.split(b"?", 1)[0].decode("ascii", "replace")):
            return False
        path = url.path
        return not self._prefix or path == self._prefix or path.startswith(self._prefix + "/")

    def check(self, url: httpx.URL) -> None:
        if not self.contains(url):
            raise OutsideUpstream(url.host)
