"""`a2map serve --redis`: rate windows shared by every runtime process using one Redis.

Two runtime processes on one SQLite store and the Redis on 127.0.0.1:6379 (each test
under its own key prefix) serve the Django sample with a limit of N data requests a
minute: the N+1-th request, whichever process it reaches, is 429 `rate_limited`. A Redis
that stops while serving leaves the limits per process (logged, never unlimited); one
that does not answer at start keeps the runtime from starting, naming it without its
password.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from tests.fixtures.redis import REDIS_URL
from tests.fixtures.runtime import (
    CONFORMANCE_GRANTS,
    CONFORMANCE_TOKENS,
    KANBAN_DRF,
    REPO,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, free_port, start_kanban

LIMIT = 5
HEADERS = {"x-a2app-token": CONFORMANCE_TOKENS["full"]}


@pytest.fixture(scope="module")
def kanban() -> Iterator[KanbanServer]:
    with start_kanban() as server:
        yield server


@contextlib.contextmanager
def _own_redis() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A Redis of this test alone, so it can be stopped while a runtime uses it."""
    binary = shutil.which("redis-server")
    assert binary is not None, "redis-server is needed (`.ci/run` installs it)"
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "the test's redis-server did not start"
                time.sleep(0.05)
        client.close()
        yield url, process
    finally:
        process.kill()
        process.wait(10)


def _limited(directory: Path) -> Path:
    return mapping_variant(KANBAN_DRF, directory, serve__rateLimits={"data": LIMIT, "ops": 10})


def _read(rt: RuntimeServer) -> httpx.Response:
    return httpx.get(f"{rt.url}/api/collections/cards/records", headers=HEADERS, timeout=30)


def test_two_processes_share_one_window(
    kanban: KanbanServer, redis_prefix: str, tmp_path: Path
) -> None:
    mapping = _limited(tmp_path)
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    args = ["--redis", REDIS_URL, "--redis-prefix", redis_prefix]
    with contextlib.ExitStack() as stack:
        first = stack.enter_context(start_runtime(
            mapping, kanban, store_url=store, grants=CONFORMANCE_GRANTS, args=args
        ))  # fmt: skip
        second = stack.enter_context(start_runtime(mapping, kanban, store_url=store, args=args))
        runtimes = [first, second]
        codes = [_read(runtimes[i % 2]).status_code for i in range(LIMIT)]
        assert codes == [200] * LIMIT
        over = [_read(rt) for rt in runtimes]  # the N+1-th, then one more on the other
        for answer in over:
            assert answer.status_code == 429, answer.text
            body = answer.json()
            assert body["code"] == "rate_limited" and 1 <= body["retryAfterSeconds"] <= 60
        # the window is kept under the caller's hashed key, never its token
        keys = [k.decode() for k in redis.Redis.from_url(REDIS_URL).scan_iter(f"{redis_prefix}*")]
        assert len(keys) == 1 and keys[0].startswith(f"{redis_prefix}rate:kanban-drf:data:tok:")
        assert CONFORMANCE_TOKENS["full"] not in keys[0]


def test_without_redis_each_process_counts_alone(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = _limited(tmp_path)
    store = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    with contextlib.ExitStack() as stack:
        first = stack.enter_context(
            start_runtime(mapping, kanban, store_url=store, grants=CONFORMANCE_GRANTS)
        )
        second = stack.enter_context(start_runtime(mapping, kanban, store_url=store))
        codes = [_read(rt).status_code for rt in (first, second) for _ in range(LIMIT)]
        assert codes == [200] * (2 * LIMIT)
        assert _read(first).status_code == _read(second).status_code == 429


def test_a_redis_that_stops_leaves_the_limits_per_process(
    kanban: KanbanServer, tmp_path: Path
) -> None:
    mapping = _limited(tmp_path)
    with contextlib.ExitStack() as stack:
        url, process = stack.enter_context(_own_redis())
        rt = stack.enter_context(start_runtime(
            mapping, kanban, grants=CONFORMANCE_GRANTS, args=["--redis", url]
        ))  # fmt: skip
        assert [_read(rt).status_code for _ in range(2)] == [200, 200]
        process.kill()
        process.wait(10)
        # fail-open to the per-process window: served, then refused after N more
        codes = [_read(rt).status_code for _ in range(LIMIT + 1)]
        assert codes == [200] * LIMIT + [429]
        assert "redis failed (ConnectionError)" in rt.stderr()


def test_a_redis_that_does_not_answer_at_start_refuses_to_serve(tmp_path: Path) -> None:
    url = f"redis://:s3cret-pass@127.0.0.1:{free_port()}/0"
    env = {"PYTHONPATH": str(REPO), "KANBAN_TOKEN": "unused", "A2APP_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "mapper", "serve", str(KANBAN_DRF), "--allow-unverified",
         "--port", "0", "--store", f"sqlite:///{tmp_path / 's.db'}", "--redis", url],
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # as for a store that cannot be opened
    assert "rate windows: Redis at redis://***@127.0.0.1:" in done.stderr
    assert "does not answer" in done.stderr and "s3cret-pass" not in done.stderr
    assert done.stdout == ""
