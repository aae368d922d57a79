"""Rate windows in Redis (`a2map serve --redis`): one count for every process, keyed by
app, class and caller key (never a token), and counted in memory while Redis fails.

Against the Redis on 127.0.0.1:6379; each test writes under its own key prefix.
"""

from __future__ import annotations

import pytest
import redis

from runtime.protocol import ProtocolError
from runtime.service import (
    RateLimiter,
    SharedWindows,
    SharedWindowsError,
    open_shared_windows,
    token_key,
)
from tests.fixtures.redis import REDIS_URL
from tests.fixtures.servers import free_port

TOKEN = "a2app_secret_token_value"


def _refusals(limiter: RateLimiter, key: str, n: int) -> list[int]:
    """The 1-based numbers of the requests, of `n`, refused as rate_limited."""
    refused = []
    for i in range(1, n + 1):
        try:
            limiter.hit(key, "data")
        except ProtocolError as exc:
            assert exc.code == "rate_limited"
            refused.append(i)
    return refused


def _shared(redis_prefix: str, app_id: str, limit: int) -> RateLimiter:
    return RateLimiter(
        {"data": limit}, app_id=app_id, shared=open_shared_windows(REDIS_URL, redis_prefix)
    )


def test_two_limiters_on_one_redis_count_one_window(redis_prefix: str) -> None:
    one, two = (_shared(redis_prefix, "app-a", 4) for _ in range(2))
    key = token_key(TOKEN)
    assert _refusals(one, key, 2) == [] and _refusals(two, key, 2) == []
    with pytest.raises(ProtocolError) as caught:
        one.hit(key, "data")
    body = caught.value.body()
    assert body["code"] == "rate_limited" and 55 <= body["retryAfterSeconds"] <= 60
    # another app, or another caller, has its own window
    other_app = _shared(redis_prefix, "app-b", 4)
    assert _refusals(other_app, key, 4) == []
    assert _refusals(two, token_key("another"), 4) == []


def test_keys_name_app_class_and_caller_key_never_the_token(redis_prefix: str) -> None:
    limiter = _shared(redis_prefix, "app-a", 9)
    limiter.hit(token_key(TOKEN), "data")
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    keys = list(client.scan_iter(f"{redis_prefix}*"))
    assert keys == [f"{redis_prefix}rate:app-a:data:{token_key(TOKEN)}"]
    assert TOKEN not in keys[0]
    assert 59_000 <= client.pttl(keys[0]) <= 60_000  # the window closes 60 s after it opens
    client.close()


def test_a_failing_redis_counts_in_memory_and_is_tried_again(redis_prefix: str) -> None:
    now = [1000.0]
    dead = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.2)
    windows = SharedWindows(dead, redis_prefix, clock=lambda: now[0])
    assert windows.count("app-a", "data", "anon", 60_000) is None
    limiter = RateLimiter({"data": 3}, lambda: now[0], app_id="app-a", shared=windows)
    # never unlimited: the per-process window still refuses the 4th request
    assert _refusals(limiter, "anon", 5) == [4, 5]
    # after the pause, Redis is asked again (and fails again)
    now[0] += 6
    assert windows.count("app-a", "data", "anon", 60_000) is None


def test_an_unreachable_redis_is_refused_at_start_without_its_password() -> None:
    url = f"redis://:hunter2-secret@127.0.0.1:{free_port()}/0"
    with pytest.raises(SharedWindowsError) as caught:
        open_shared_windows(url, "a2app:")
    message = str(caught.value)
    assert "does not answer" in message and "127.0.0.1" in message
    assert "hunter2-secret" not in message and "***" in message


def test_without_redis_each_limiter_counts_alone() -> None:
    one, two = RateLimiter({"data": 2}), RateLimiter({"data": 2})
    assert _refusals(one, "anon", 3) == [3]
    assert _refusals(two, "anon", 2) == []
