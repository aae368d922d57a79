"""Serve mappings: the states opened by the service, their app(s) on uvicorn."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from runtime.service import RuntimeState, ServeOptions, build_states, close_states

from ._apps import Runtime, runtime_app
from ._mcp import MCP_PATH, mount_mcp

log = logging.getLogger("a2app.runtime")
HTTP_HEAD_LIMIT = 1024 * 1024
# The line printed on stdout once the server listens: (url, state, agent token file) -> text.
Announce = Callable[[str, RuntimeState, Path], str]


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio turns Nagle off only on sockets that say they
    # are TCP, and uvicorn writes headers and body apart, so a keep-alive answer
    # would otherwise wait for the client's delayed ACK (about 40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


async def _serve(server: uvicorn.Server, sock: socket.socket, announce: str) -> None:
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started:
        print(announce, flush=True)
    await task


@contextmanager
def _graceful_stop(server: uvicorn.Server) -> Iterator[list[int]]:
    """SIGTERM, SIGHUP and Ctrl-C stop the server gracefully, and the command exits 0.

    uvicorn handles SIGTERM and SIGINT itself and, once shut down, raises the signal
    again into the handler that was there before it; that handler is this one, so a
    stopped server is a normal end, not a death by the signal (exit 143). SIGHUP,
    which uvicorn leaves alone, stops it the same way.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def stop(signum: int, frame: object) -> None:
        if not received:
            received.append(signum)
        server.should_exit = True

    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    previous = {signum: signal.signal(signum, stop) for signum in stops}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _unverified_prefix(record: logging.LogRecord) -> bool:
    record.msg = f"[unverified] {record.msg}"
    return True


def _announce_line(
    options: ServeOptions, url: str, runtime: Runtime, states: list[RuntimeState], token_file: Path
) -> str:
    if options.ready_json:
        doc: dict[str, object] = {"url": url, "pid": os.getpid()}
        if len(states) == 1:
            doc["app"] = states[0].mapping.app.id
        else:
            doc["apps"] = runtime.bases
        return json.dumps(doc)
    if len(states) == 1:
        app_id = states[0].mapping.app.id
        return (
            f"Serving {app_id} at {url} "
            f"(identity: {url}/api/_a2app, describe: {url}/api/_a2app/describe, "
            f"MCP: {url}{MCP_PATH})\n"
            f"Local agent token: {token_file} (mode 0600)"
        )
    lines = [
        f"Serving {len(states)} apps at {url} "
        f"(directory: {url}/api/_a2app/apps, MCP: {url}{MCP_PATH})"
    ]
    for app_id, base in runtime.bases.items():
        lines.append(f"  {app_id}: {url}{base} (describe: {url}{base}/api/_a2app/describe)")
    lines.append(f"Local agent token: {token_file} (mode 0600)")
    return "\n".join(lines)


def _notes(state: RuntimeState) -> None:
    app_id = state.mapping.app.id
    if state.unverified:
        print(
            f"warning: {app_id} is served UNVERIFIED (--allow-unverified): "
            "no fresh verification stamp matches this mapping",
            file=sys.stderr,
        )
    elif state.reads_only:
        print(f"note: {app_id} is verified for reads only; writes are refused", file=sys.stderr)
    if state.withheld:
        # A partial stamp: say what is not served, and why, before the first request.
        print(f"note: {app_id} is partly verified; withheld:", file=sys.stderr)
        for withheld in state.withheld.describe():
            print(f"  {withheld}", file=sys.stderr)


def run(options: ServeOptions, announce: Announce | None = None) -> None:
    """Serve the mappings of `options`: one at the root, several under /apps/{appId}; the
    MCP gateway at /mcp over all of them."""
    states, token_file = build_states(options)
    try:
        sock = _bind(options.host, options.port)
    except BaseException:
        close_states(states)
        raise
    port = sock.getsockname()[1]
    host = f"[{options.host}]" if ":" in options.host else options.host
    url = f"http://{host}:{port}"
    runtime = runtime_app(states)
    mount_mcp(runtime, states)
    config = uvicorn.Config(
        runtime.app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http="h11",
        # Above the app's own limits (64 KiB of query or headers), so an over-long
        # request is refused by the app, in the protocol's envelope, not by h11's
        # plain-text 400.
        h11_max_incomplete_event_size=HTTP_HEAD_LIMIT,
    )
    server = uvicorn.Server(config)
    if announce is not None:
        line = announce(url, states[0], token_file)
    else:
        line = _announce_line(options, url, runtime, states, token_file)
    for state in states:
        _notes(state)
    if any(state.unverified for state in states):
        logging.getLogger("a2app").addFilter(_unverified_prefix)
    try:
        with _graceful_stop(server) as received:
            asyncio.run(_serve(server, sock, line))
        if received:
            print(f"stopped by {signal.Signals(received[0]).name}", file=sys.stderr)
    finally:
        close_states(states)
