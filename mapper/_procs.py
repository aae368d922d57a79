"""Child servers that announce themselves with one JSON line, stopped as a group."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Any


class ChildFailed(RuntimeError):
    pass


def spawn(
    cmd: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 60.0
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """Start `cmd` in its own process group and wait for its JSON ready line."""
    process = subprocess.Popen(
        list(cmd),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        start_new_session=True,
    )
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    line = b""
    while time.monotonic() < deadline and not line.endswith(b"\n"):
        if not selector.select(timeout=0.2):
            if process.poll() is not None:
                break
            continue
        chunk = os.read(process.stdout.fileno(), 4096)
        if not chunk:
            break
        line += chunk
    selector.close()
    if not line.endswith(b"\n"):
        stop(process)
        err = process.stderr.read().decode(errors="replace")[-2000:] if process.stderr else ""
        raise ChildFailed(f"{' '.join(cmd[:4])} did not start:\n{err}")
    return process, json.loads(line.split(b"\n", 1)[0])


def stop(process: subprocess.Popen[bytes], grace: float = 3.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(grace)
