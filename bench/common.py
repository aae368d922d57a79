"""What the benchmark programs share: starting and stopping their servers, a minimal
raw HTTP/1.1 client, the mapping variant they serve, and the wording of their figures.

A server is started in its own process group and is ready once it prints one JSON
line holding its ``url`` on stdout; `running` stops its whole group when the block
ends, and `unwinding` makes SIGTERM end the blocks like Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import select
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import yaml

REPO = Path(__file__).resolve().parents[1]
MAPPING = REPO / "mappings" / "kanban-drf.yaml"
START_TIMEOUT = 60.0
STOP_GRACE = 3.0


# ---------------------------------------------------------------- processes


@dataclass
class Process:
    name: str
    url: str
    popen: subprocess.Popen[bytes] = field(repr=False)
    info: dict[str, Any] = field(default_factory=dict)


def start_process(
    name: str, command: Sequence[str], *, env: dict[str, str], cwd: Path, log: IO[bytes]
) -> Process:
    """Start `command` in its own process group and wait for its JSON ready line."""
    popen = subprocess.Popen(
        list(command),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
    )
    try:
        info = _ready(popen, name)
    except BaseException:
        stop_process(popen)
        raise
    return Process(name, str(info["url"]), popen, info)


def _ready(popen: subprocess.Popen[bytes], name: str) -> dict[str, Any]:
    assert popen.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(popen.stdout, selectors.EVENT_READ)
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"{name} did not start within {START_TIMEOUT:g} s")
            if selector.select(min(left, 0.5)):
                chunk = os.read(popen.stdout.fileno(), 4096)
                if not chunk:
                    raise RuntimeError(f"{name} exited with {popen.wait(5)} before it was ready")
                buffer += chunk
    line = buffer.split(b"\n", 1)[0]
    info = json.loads(line)
    if not isinstance(info, dict) or "url" not in info:
        raise RuntimeError(f"{name} printed an unexpected ready line: {line[:300]!r}")
    return info


def stop_process(popen: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, SIGKILL what is left after a grace period, reap."""
    if popen.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(popen.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(STOP_GRACE)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(popen.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(10)
    if popen.stdout is not None:
        popen.stdout.close()


def grant(store_url: str, token_id: str, agent_name: str, scopes: Sequence[str] = ("*",)) -> str:
    """A token in the runtime's store, made before the runtime opens it."""
    import secrets

    from runtime.store import Store

    token = secrets.token_hex(24)
    with Store.open(store_url) as store:
        store.create_grant(
            id=token_id, agent_name=agent_name, scopes=list(scopes), token=token, app_id=None
        )
    return token


def unwinding(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """`run(args)` with SIGTERM unwinding like Ctrl-C, so every server started is stopped
    and everything made is cleaned up on the way out."""
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        return run(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def running(
    name: str, command: Sequence[str], *, env: dict[str, str], cwd: Path, log: IO[bytes]
) -> Iterator[Process]:
    process = start_process(name, command, env=env, cwd=cwd, log=log)
    try:
        yield process
    finally:
        stop_process(process.popen)


# ---------------------------------------------------------------- serving an app


def serve_child(app: Any) -> None:
    """Serve `app` on a free loopback port with the runtime's uvicorn settings.

    The listening socket names its protocol (IPPROTO_TCP): asyncio disables
    Nagle's algorithm only on connections whose socket says it is TCP, and
    uvicorn writes a response's headers and body separately, so without it every
    answer on a kept-alive connection waits for the client's delayed ACK.
    """
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    sock.setblocking(False)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    )

    async def serve() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            print(json.dumps({"url": url, "pid": os.getpid()}), flush=True)
        await task

    asyncio.run(serve())


# ---------------------------------------------------------------- minimal HTTP/1.1 clients


class HttpError(RuntimeError):
    pass


CHUNKED = -1  # `status_and_length`'s length for a chunked answer


def status_and_length(raw: bytes, target: str) -> tuple[int, int]:
    """Status and body length (or CHUNKED) from the header block of an answer."""
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value.strip())
        elif name == "transfer-encoding" and "chunked" in value.lower():
            length = CHUNKED
    if length is None:
        raise HttpError(f"GET {target}: the answer has neither a length nor chunks")
    return status, length


class Client:
    """One keep-alive HTTP/1.1 connection: a request, then its whole answer."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.address = (parts.hostname or "127.0.0.1", parts.port or 80)
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.prefix = f"Host: {self.address[0]}:{self.address[1]}\r\n{extra}\r\n".encode()
        self.sock = self._connect()
        self.buffer = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self.address, timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def close(self) -> None:
        self.sock.close()

    def _read(self) -> bytes:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise HttpError("the server closed the connection")
        return chunk

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self.buffer += self._read()
        found, self.buffer = self.buffer.split(marker, 1)
        return found

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self.buffer += self._read()
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found

    def _reopen_if_closed(self) -> None:
        """Servers close idle kept-alive connections (uvicorn after 5 s): open a new one."""
        readable, _, _ = select.select([self.sock], [], [], 0)
        if readable and not self.sock.recv(1, socket.MSG_PEEK):
            self.sock.close()
            self.sock, self.buffer = self._connect(), b""

    def get(self, target: str) -> tuple[int, bytes]:
        self._reopen_if_closed()
        self.sock.sendall(b"GET " + target.encode("ascii") + b" HTTP/1.1\r\n" + self.prefix)
        head = self._until(b"\r\n\r\n")
        status, length = status_and_length(head, target)
        if length == CHUNKED:
            parts = []
            while size := int(self._until(b"\r\n").split(b";", 1)[0], 16):
                parts.append(self._exactly(size))
                self._exactly(2)
            self._until(b"\r\n")  # no trailers are sent: the blank line ends the body
            body = b"".join(parts)
        else:
            body = self._exactly(length)
        if b"connection: close" in head.lower():
            self.sock.close()
            self.sock, self.buffer = self._connect(), b""
        return status, body

    def json(self, target: str) -> Any:
        status, body = self.get(target)
        if status != 200:
            raise HttpError(f"GET {target} answered {status}: {body[:300]!r}")
        return json.loads(body)


# ---------------------------------------------------------------- figures and the mapping


def _percentiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return statistics.median(samples), cuts[94]


def verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


def mapping_variant(directory: Path) -> Path:
    """`mappings/kanban-drf.yaml` written into `directory` with every filter param and the
    sort marked proven and the rate limits raised, so that no stamp is needed for a
    pushed-down read and the limiter never refuses a benchmark's own requests."""
    doc = yaml.safe_load(MAPPING.read_text())
    for entity in doc["entities"].values():
        for ops in entity.get("filter", {}).values():
            for op, spelled in ops.items():
                param = spelled if isinstance(spelled, str) else spelled["param"]
                ops[op] = {"param": param, "proven": True}
        if "sort" in entity:
            entity["sort"]["proven"] = True
    doc.setdefault("serve", {})["rateLimits"] = {"data": 1_000_000, "ops": 1_000_000}
    path = directory / MAPPING.name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def pair_line(samples: list[float]) -> str:
    """The p50 and p95 of latencies in ms, in the benchmarks' column layout."""
    p50, p95 = _percentiles(samples)
    return f"p50 {p50:7.2f} ms   p95 {p95:7.2f} ms"
