"""Rate windows counted in Redis, so a limit means the same with one process or several.

One Lua script per request: INCR the window's counter, give it a 60 s expiry when it
opens, and answer the count with the time left. Keys name the app, the rate class and
the caller key (`rate_key`: a token only ever as a hash), never a token.

When Redis fails while serving, the limiter counts in process memory instead (the
limits hold per process, as without --redis) and tries Redis again after a pause:
serving goes on, and the upstream is never left without a limit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    # imported when a Redis is opened: a runtime counting in memory never loads it
    import redis

log = logging.getLogger("a2app.runtime")

# KEYS[1] the window's counter; ARGV[1] the window in ms. Returns {count, ms left}.
_SCRIPT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {n, tonumber(ARGV[1])}
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {n, left}
"""
# A request waits at most this long on Redis before it is counted in memory instead.
TIMEOUT_S = 0.25
# After a failure, how long requests are counted in memory before Redis is tried again.
RETRY_AFTER_S = 5.0


class SharedWindowsError(Exception):
    """Redis did not answer when serving started."""


def redacted(url: str) -> str:
    """The URL without its password, fit for an error message or a log line."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}:***@" if parts.username else "***@"
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


class SharedWindows:
    """Fixed windows in Redis; `count` answers None while Redis is failing."""

    def __init__(
        self, client: redis.Redis, prefix: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        import redis

        self._errors = redis.RedisError
        self._client = client
        self._prefix = prefix
        self._script = client.register_script(_SCRIPT)
        self._clock = clock
        self._down_until = 0.0

    def count(self, app_id: str, klass: str, key: str, window_ms: int) -> tuple[int, int] | None:
        """(requests in the window so far, this one included; ms left), or None when
        Redis failed now or a moment ago."""
        if self._down_until and self._clock() < self._down_until:
            return None
        try:
            n, left = self._script(keys=[f"{self._prefix}rate:{app_id}:{klass}:{key}"],
                                   args=[window_ms])  # fmt: skip
        except self._errors as exc:
            if not self._down_until:
                log.warning(
                    "redis failed (%s); rate windows are counted per process until it answers",
                    type(exc).__name__,
                )
            self._down_until = self._clock() + RETRY_AFTER_S
            return None
        if self._down_until:
            log.warning("redis answers again; rate windows are shared again")
            self._down_until = 0.0
        return int(n), int(left)

    def close(self) -> None:
        self._client.close()


def open_shared_windows(url: str, prefix: str) -> SharedWindows:
    """Windows in the Redis at `url`, which must answer now."""
    import redis

    try:
        client = redis.Redis.from_url(
            url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S * 4
        )
        client.ping()
    except (redis.RedisError, ValueError) as exc:
        reason = str(exc) if isinstance(exc, ValueError) else type(exc).__name__
        if isinstance(exc, redis.ConnectionError):
            reason = "connection failed"
        raise SharedWindowsError(f"Redis at {redacted(url)} does not answer ({reason})") from None
    return SharedWindows(client, prefix)
