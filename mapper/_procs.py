"""Child servers that announce themselves with one JSON line, logged to files, stopped as a group.

A child's stderr goes straight to a file. Its stdout is a pipe only for the
ready line (which may hold a secret, such as the sample's token, so it is
never logged); a thread then copies the rest to a file. No pipe is ever left
unread: a full pipe (64 KiB) blocks the child on its next write.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOG_MODE = 0o600
POLL_SECONDS = 0.05


class ChildFailed(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Logs:
    stdout: Path
    stderr: Path


def log_paths(directory: Path, name: str) -> Logs:
    return Logs(directory / f"{name}.stdout.log", directory / f"{name}.stderr.log")


def start(
    cmd: Sequence[str], logs: Logs, *, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start `cmd` in its own process group, its stderr in an owner-only file."""
    fd = _log_fd(logs.stderr)
    try:
        return subprocess.Popen(
            list(cmd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=fd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
    finally:
        os.close(fd)


def ready_line(
    process: subprocess.Popen[bytes], logs: Logs, *, timeout: float = 60.0
) -> dict[str, Any]:
    """The child's first stdout line, a JSON object; ChildFailed (child stopped) otherwise.

    What the child prints after it is copied to `logs.stdout` from then on.
    """
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    text = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in text and time.monotonic() < deadline:
            if not selector.select(timeout=0.2):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            text += chunk
    first, newline, rest = text.partition(b"\n")
    try:
        if not newline:
            raise ValueError("no ready line")
        info = json.loads(first)
        if not isinstance(info, dict):
            raise ValueError("not an object")
    except ValueError:
        why = "exited before it was ready" if exited(process) else f"was not ready in {timeout:g} s"
        stop(process)
        tail = logs.stderr.read_text(errors="replace")[-2000:]
        name = " ".join(_command(process))
        raise ChildFailed(f"{name} {why}; its log: {logs.stderr}\n{tail}") from None
    out = _log_fd(logs.stdout)
    threading.Thread(target=_copy, args=(fd, out, rest), daemon=True).start()
    return info


def _copy(source: int, target: int, first: bytes) -> None:
    """Copy the child's stdout to its log until the child closes it."""
    try:
        chunk = first
        while True:
            if chunk:
                os.write(target, chunk)
            chunk = os.read(source, 65536)
            if not chunk:
                return
    except OSError:
        return
    finally:
        os.close(target)


def _command(process: subprocess.Popen[bytes]) -> list[str]:
    args = process.args
    return [str(a) for a in args[:4]] if isinstance(args, list) else [str(args)]


def exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether the child has exited, without reaping it (its group id stays taken)."""
    if process.returncode is not None:
        return True
    try:
        info = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def stop(process: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGTERM the child's group, SIGKILL whatever is left after `grace`, reap the child.

    The group is killed while its leader is exited but not yet reaped, so the
    group id cannot have been reused by an unrelated process.
    """
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while not exited(process) and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _log_fd(path: Path) -> int:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, LOG_MODE)
    # O_CREAT's mode only applies to a new file
    os.fchmod(fd, LOG_MODE)
    return fd
