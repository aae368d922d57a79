"""Launcher shared by the foreign-stack samples (json-server, PocketBase, Rails).

``python -m samples.<stack> serve --port PORT [--data DIR] [--seed default|rich]``: the
stack prepares its data, then the real server runs as a child of this launcher, in the
launcher's process group (the launcher makes itself group leader). Once the server
answers on 127.0.0.1, one JSON line is printed on stdout:
``{"url": "http://127.0.0.1:PORT", "token": "..." or null, "pid": <launcher pid>}``.

SIGTERM or SIGINT to the launcher stops the server and exits 0; ``kill -- -PID`` stops the
whole group. The server is started with ``PR_SET_PDEATHSIG`` = SIGKILL, so it never
outlives the launcher. If the server exits by itself the launcher exits with its code.
The server's own output goes to ``DATA/server.log`` (to stderr with ``--verbose``).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import http.client
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .dataset import SEEDS

HOST = "127.0.0.1"
STOP_GRACE_SECONDS = 5.0
LOG_NAME = "server.log"
PR_SET_PDEATHSIG = 1

log = logging.getLogger("samples.launch")
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


class StackError(RuntimeError):
    """The stack cannot be prepared (missing package, wrong binary, failed build)."""


class _Stop(BaseException):
    """Raised by the SIGTERM/SIGINT handler."""


@dataclass(frozen=True)
class Launch:
    """How to run a prepared stack. ``login(url)`` gives the token once it answers."""

    command: Sequence[str]
    cwd: Path
    ready_path: str
    env: dict[str, str] = field(default_factory=dict)
    token: str | None = None
    login: Callable[[str], str | None] | None = None


Prepare = Callable[[Path, str, int], Launch]


def cache_root() -> Path:
    """``$A2APP_SAMPLES_CACHE``, else ``$XDG_CACHE_HOME/a2app-samples``, else ``~/.cache/...``."""
    explicit = os.environ.get("A2APP_SAMPLES_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "a2app-samples"


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    serve = commands.add_parser("serve", help="run the server", description=description)
    serve.add_argument("--port", type=_port, required=True, help="TCP port; 0 picks a free one")
    serve.add_argument(
        "--data",
        metavar="DIR",
        help="data directory, reused as is when it holds data (default: a temporary one)",
    )
    serve.add_argument("--seed", choices=SEEDS, default="default", help="data set of new data")
    serve.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for ready")
    serve.add_argument("--verbose", action="store_true", help="server output and timing on stderr")
    return parser


def main(prog: str, description: str, prepare: Prepare, argv: list[str] | None = None) -> int:
    parser = build_parser(prog, description)
    args = parser.parse_args(argv)
    if args.data is not None and Path(args.data).exists() and not Path(args.data).is_dir():
        parser.error(f"--data {args.data}: not a directory")
    logging.basicConfig(stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    log.setLevel(logging.INFO if args.verbose else logging.WARNING)
    try:
        return serve(args, prepare)
    except StackError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1


def serve(args: argparse.Namespace, prepare: Prepare) -> int:
    started = time.monotonic()
    _own_process_group()
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    temporary = args.data is None
    data_dir = Path(tempfile.mkdtemp(prefix="kanban-")) if temporary else Path(args.data).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    child: subprocess.Popen[bytes] | None = None
    try:
        child, launch, url = _start(args, prepare, data_dir, started + args.timeout)
        token = launch.login(url) if launch.login else launch.token
        log.info("ready at %s in %.2fs (data in %s)", url, time.monotonic() - started, data_dir)
        ready = {"url": url, "token": token, "pid": os.getpid()}
        sys.stdout.write(json.dumps(ready) + "\n")
        sys.stdout.flush()
        code = child.wait()
        log.warning("server exited by itself with code %s", code)
        return code if code > 0 else 1
    except _Stop:
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if child is not None:
            stop(child)
        if temporary:
            shutil.rmtree(data_dir, ignore_errors=True)


def _start(
    args: argparse.Namespace, prepare: Prepare, data_dir: Path, deadline: float
) -> tuple[subprocess.Popen[bytes], Launch, str]:
    """Prepare and spawn the server, wait until it answers; retry if a free port was taken."""
    attempts = 3 if args.port == 0 else 1
    for attempt in range(1, attempts + 1):
        port = args.port or free_port()
        launch = prepare(data_dir, args.seed, port)
        child = spawn(launch, data_dir, args.verbose)
        url = f"http://{HOST}:{port}"
        try:
            ready = wait_ready(child, port, launch.ready_path, deadline)
        except BaseException:
            stop(child)
            raise
        if ready:
            return child, launch, url
        stop(child)
        if attempt == attempts or time.monotonic() >= deadline:
            break
    raise StackError(f"server did not answer on {url}{launch.ready_path}{_tail(data_dir)}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _port(value: str) -> int:
    if not value.isdigit() or not 0 <= int(value) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {value!r}: must be 0..65535")
    return int(value)


def _own_process_group() -> None:
    with contextlib.suppress(OSError):  # already a session leader: keep that group
        if os.getpgrp() != os.getpid():
            os.setpgid(0, 0)


def _on_signal(signum: int, frame: Any) -> None:
    raise _Stop(signum)


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGKILL it when the launcher dies."""
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def spawn(launch: Launch, data_dir: Path, verbose: bool) -> subprocess.Popen[bytes]:
    log.info("starting %s", " ".join(launch.command))
    env = {**os.environ, **launch.env}
    with contextlib.ExitStack() as stack:
        out: Any = sys.stderr.fileno() if verbose else stack.enter_context(_log_file(data_dir))
        return subprocess.Popen(
            list(launch.command),
            cwd=launch.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )


def _log_file(data_dir: Path) -> Any:
    return (data_dir / LOG_NAME).open("ab")


def wait_ready(child: subprocess.Popen[bytes], port: int, path: str, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if child.poll() is not None:
            return False
        connection = http.client.HTTPConnection(HOST, port, timeout=2)
        try:
            connection.request("GET", path)
            if connection.getresponse().status < 500:
                return True
        except OSError:
            time.sleep(0.05)
        finally:
            connection.close()
    return False


def stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _tail(data_dir: Path, chars: int = 3000) -> str:
    path = data_dir / LOG_NAME
    if not path.exists():
        return ""
    return "\nserver output:\n" + path.read_text(errors="replace")[-chars:]


def run_checked(command: Sequence[str], what: str, **kwargs: Any) -> str:
    """Run a preparation step; a failure becomes a StackError with its output."""
    result = subprocess.run(
        list(command), capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs
    )
    if result.returncode != 0:
        raise StackError(
            f"{what} failed (exit {result.returncode}): {' '.join(command)}\n"
            f"{result.stdout[-3000:]}{result.stderr[-3000:]}"
        )
    return str(result.stdout)
