"""Prism (npm `@stoplight/prism-cli@5`), installed on first use into a cache directory.

Prism mocks an OpenAPI document: it answers every read with the document's
examples and accepts every valid write without storing anything, which is what
an upstream that does not persist writes looks like.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.servers import free_port

PACKAGE = "@stoplight/prism-cli@5"
START_SECONDS = 60


def cache_dir() -> Path:
    root = os.environ.get("A2APP_TEST_CACHE") or Path.home() / ".cache" / "a2app-anystack"
    return Path(root) / "prism5"


def prism_entry() -> Path:
    """The CLI script, installed with `npm install --prefix` when missing; fails, never skips."""
    prefix = cache_dir()
    entry = prefix / "node_modules" / "@stoplight" / "prism-cli" / "dist" / "index.js"
    if entry.is_file():
        return entry
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail(
            "the Prism test needs Node.js and npm (to install @stoplight/prism-cli@5); "
            "install them (Debian: apt-get install nodejs npm) and run the tests again"
        )
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", PACKAGE],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0 or not entry.is_file():
        pytest.fail(
            f"npm install {PACKAGE} failed (exit {done.returncode}):\n{done.stderr[-2000:]}"
        )
    return entry


@contextlib.contextmanager
def prism_mock(spec: Path, token: str) -> Iterator[str]:
    """Prism mocking `spec` on a free loopback port; yields its base URL."""
    entry = prism_entry()
    port = free_port()
    command = ["node", str(entry), "mock", "-h", "127.0.0.1", "-p", str(port), str(spec)]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                httpx.get(f"{url}/api/boards/", headers={"Authorization": f"Token {token}"})
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    err = process.stderr.read().decode(errors="replace") if process.stderr else ""
                    pytest.fail(f"Prism did not start: {' '.join(command)}\n{err[-2000:]}")
                time.sleep(0.2)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
