"""How a command is shown to a user so it can be pasted, and whether a port is free to bind."""

from __future__ import annotations

import shlex
import shutil
import socket
import sys
from pathlib import Path


def a2map_words() -> list[str]:
    """How to type `a2map` so that the same installation runs."""
    found = shutil.which("a2map")
    sibling = Path(sys.executable).parent / "a2map"
    if found and sibling.exists() and Path(found).resolve() == sibling.resolve():
        return ["a2map"]
    return [sys.executable, "-m", "mapper"]


def a2map_line(args: list[str]) -> str:
    """`a2map ARGS` as one shell line, quoted so it runs as shown."""
    return shlex.join([*a2map_words(), *args])


def port_problem(host: str, port: int) -> str | None:
    """Why the runtime could not listen on `port`, found before anything starts."""
    if port == 0:
        return None
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # as the runtime binds: a port held only by closed connections is free
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            return f"port {port} on {host} is not free ({exc.strerror})"
    return None
