"""Realtime fan-out of the runtime, against a bare Starlette SSE endpoint, in one run.

    .venv/bin/python -m bench.realtime [--subscribers 1000] [--writes 20] [--smoke]

Starts the Django sample and two servers, and fans the same messages out two ways:

``runtime (a2map serve)``
    ``python -m mapper serve --allow-unverified`` with the mapping variant of
    ``bench.common`` (limits raised) and ``serve.feed`` on cards. Every
    subscriber opens ``GET /api/realtime``, reads its ``PB_CONNECT`` frame and
    subscribes to ``cards/*`` with ``POST /api/realtime`` under a token of scope
    ``data:cards:read``. Each write is a card created through the runtime
    (``POST /api/collections/cards/records``, a token of scope ``*``): it enters the
    change feed at once, and the runtime's fan-out reads it from the store and
    queues one frame per subscriber.
``bare Starlette SSE``
    a Starlette app under uvicorn, served like the runtime, whose ``GET /sse`` is a
    ``StreamingResponse`` of one unbounded queue per connection and whose
    ``POST /publish`` puts the frame into every queue before it answers. It is
    given, write by write, the very message the runtime delivered, framed the same
    way: the least any Python SSE server spends on the same fan-out.

Latency is taken from the moment the write's answer arrived to the moment each
subscriber had read the whole frame, for every subscriber and every write; p50, p95
and max are over all of them. The writes are made one at a time, each after every
subscriber received the one before (or a bound passed). Messages per second is the
messages delivered over the time from each write's answer to its last receipt,
summed over the writes. A runtime client whose bounded queue fills is dropped (its
stream ends); the subscribers whose stream ended and the messages not received are
printed as drops.

The subscribers are minimal raw HTTP/1.1 clients on one event loop in this process,
so no client library's cost is in the figures; with few cores they share the CPU
with the servers, which flattens the ratio toward 1. Everything listens on
127.0.0.1, and every process started here is stopped (its whole process group)
before the program exits, also when interrupted.

``--smoke`` runs both ways with 20 subscribers and 3 writes and judges nothing
(the exit code is 0 unless something could not be started or answered wrongly):
the tests run it so that the benchmark cannot break unnoticed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from bench.common import REPO, Process, grant, mapping_variant, running, serve_child, unwinding
from runtime.service import REALTIME_INTERVAL

RUNTIME = "runtime (a2map serve)"
BARE = "bare Starlette SSE"
TOPIC = "cards/*"
FEED = {"entities": ["cards"], "interval": 60, "budget": 600}
RECEIPT_BOUND = 30.0  # seconds a write waits for every subscriber to receive it
CONNECT_BATCH = 50  # subscribers connecting at once


# ---------------------------------------------------------------- the baseline, as a server


def _bare_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    queues: dict[str, asyncio.Queue[str]] = {}

    async def sse(request: Request) -> StreamingResponse:
        client = secrets.token_hex(20)
        queue: asyncio.Queue[str] = asyncio.Queue()
        queues[client] = queue

        async def frames() -> Any:
            try:
                connect = json.dumps({"clientId": client}, separators=(",", ":"))
                yield f"id:{client}\nevent:PB_CONNECT\ndata:{connect}\n\n"
                while True:
                    yield await queue.get()
            finally:
                queues.pop(client, None)

        return StreamingResponse(frames(), media_type="text/event-stream")

    async def publish(request: Request) -> Response:
        data = (await request.body()).decode()
        for client, queue in list(queues.items()):
            queue.put_nowait(f"id:{client}\nevent:{TOPIC}\ndata:{data}\n\n")
        return Response(status_code=204)

    return Starlette(routes=[Route("/sse", sse), Route("/publish", publish, methods=["POST"])])


# ---------------------------------------------------------------- a raw SSE subscriber


class StreamError(RuntimeError):
    pass


@dataclass
class Subscriber:
    """One SSE connection, read frame by frame; `received` maps a write's tag to the
    monotonic time its frame had been read whole."""

    host: str
    port: int
    path: str
    client_id: str = ""
    received: dict[str, float] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)
    ended: bool = False
    _reader: asyncio.StreamReader | None = None
    _writer: asyncio.StreamWriter | None = None
    _task: asyncio.Task[None] | None = None
    _buffer: bytes = b""

    async def open(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        self._reader, self._writer = reader, writer
        writer.write(
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode("ascii")
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            raise StreamError(f"GET {self.path} answered {status}")
        if b"transfer-encoding: chunked" not in head.lower():
            raise StreamError(f"GET {self.path} is not a chunked stream")
        event, data = await self._frame()
        if event != "PB_CONNECT":
            raise StreamError(f"the first frame is {event!r}, not PB_CONNECT")
        self.client_id = str(json.loads(data)["clientId"])
        self._task = asyncio.create_task(self._read())

    async def _chunks(self) -> bytes:
        assert self._reader is not None
        size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            raise asyncio.IncompleteReadError(b"", None)
        chunk = await self._reader.readexactly(size + 2)
        return chunk[:-2]

    async def _frame(self) -> tuple[str, str]:
        while b"\n\n" not in self._buffer:
            self._buffer += await self._chunks()
        text, self._buffer = self._buffer.split(b"\n\n", 1)
        event = data = ""
        for line in text.decode().split("\n"):
            name, _, value = line.partition(":")
            if name == "event":
                event = value
            elif name == "data":
                data = value
        return event, data

    async def _read(self) -> None:
        try:
            while True:
                event, data = await self._frame()
                if event != TOPIC:
                    continue  # a heartbeat comment, or a frame of another kind
                now = time.monotonic()
                tag = _tag_of(data)
                self.received.setdefault(tag, now)
                self.data.setdefault(tag, data)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            self.ended = True

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()


def _tag_of(data: str) -> str:
    """The run's tag a frame carries: the title of the created card."""
    doc = json.loads(data)
    record = doc.get("record", doc) if isinstance(doc, dict) else {}
    return str(record.get("title", "")) if isinstance(record, dict) else ""


# ---------------------------------------------------------------- one way


@dataclass
class Result:
    latencies: list[float]  # seconds, every receipt of every write
    delivered: int
    span: float  # seconds: each write's answer to its last receipt, summed
    spread: list[float]  # seconds, per write: its first receipt to its last
    early: int  # receipts read before the write's answer was (counted as 0 ms)
    ended: int  # subscribers whose stream ended under the run
    missing: int  # messages a subscriber never received
    connect_seconds: float


async def _fan_out(
    subscribers: list[Subscriber],
    tags: Sequence[str],
    write: Callable[[str], Awaitable[float]],
) -> Result:
    latencies: list[float] = []
    spread: list[float] = []
    span = 0.0
    early = 0
    missing = 0
    pauses = random.Random(len(tags))  # the same pauses for both ways
    for tag in tags:
        # a pause of up to one fan-out interval: writes made at once after the last receipt
        # would keep step with the runtime's reads of the store, each waiting a whole interval
        await asyncio.sleep(pauses.uniform(0, REALTIME_INTERVAL))
        answered = await write(tag)
        deadline = answered + RECEIPT_BOUND
        while True:
            waiting = [s for s in subscribers if tag not in s.received and not s.ended]
            if not waiting or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.002)
        got = [s.received[tag] for s in subscribers if tag in s.received]
        missing += len(subscribers) - len(got)
        # the frame and the write's answer race on this one loop: a frame read first
        # counts as 0 ms, not as a negative latency
        early += sum(1 for t in got if t < answered)
        latencies += [max(0.0, t - answered) for t in got]
        if got:
            span += max(0.0, max(got) - answered)
            spread.append(max(got) - min(got))
    ended = sum(1 for s in subscribers if s.ended)
    return Result(latencies, len(latencies), span, spread, early, ended, missing, 0.0)


async def _connect_all(
    count: int, host: str, port: int, path: str, subscribe: Callable[[Subscriber], Awaitable[None]]
) -> tuple[list[Subscriber], float]:
    started = time.monotonic()
    subscribers = [Subscriber(host, port, path) for _ in range(count)]
    for i in range(0, count, CONNECT_BATCH):
        batch = subscribers[i : i + CONNECT_BATCH]
        await asyncio.gather(*(s.open() for s in batch))
        await asyncio.gather(*(subscribe(s) for s in batch))
    return subscribers, time.monotonic() - started


async def _runtime_way(
    url: str, read_token: str, write_token: str, count: int, tags: Sequence[str]
) -> tuple[Result, dict[str, str]]:
    import httpx

    host, port = _host_port(url)
    async with httpx.AsyncClient(base_url=url, timeout=60, trust_env=False) as http:

        async def subscribe(s: Subscriber) -> None:
            answer = await http.post(
                "/api/realtime",
                json={"clientId": s.client_id, "subscriptions": [TOPIC]},
                headers={"X-A2App-Token": read_token},
            )
            if answer.status_code != 204:
                raise StreamError(f"POST /api/realtime answered {answer.status_code}: "
                                  f"{answer.text[:300]}")  # fmt: skip

        async def write(tag: str) -> float:
            answer = await http.post(
                "/api/collections/cards/records",
                json={"title": tag, "list": "list_todo"},
                headers={"X-A2App-Token": write_token},
            )
            answered = time.monotonic()
            if answer.status_code != 200:
                raise StreamError(f"the write answered {answer.status_code}: {answer.text[:300]}")
            return answered

        subscribers, took = await _connect_all(count, host, port, "/api/realtime", subscribe)
        try:
            result = await _fan_out(subscribers, tags, write)
        finally:
            await asyncio.gather(*(s.close() for s in subscribers))
    result.connect_seconds = took
    payloads: dict[str, str] = {}
    for s in subscribers:
        for tag, data in s.data.items():
            payloads.setdefault(tag, data)
    return result, payloads


async def _bare_way(url: str, count: int, tags: Sequence[str], payloads: dict[str, str]) -> Result:
    import httpx

    host, port = _host_port(url)
    async with httpx.AsyncClient(base_url=url, timeout=60, trust_env=False) as http:

        async def subscribe(s: Subscriber) -> None:
            return None

        async def write(tag: str) -> float:
            answer = await http.post("/publish", content=payloads[tag].encode())
            answered = time.monotonic()
            if answer.status_code != 204:
                raise StreamError(f"publish answered {answer.status_code}")
            return answered

        subscribers, took = await _connect_all(count, host, port, "/sse", subscribe)
        try:
            result = await _fan_out(subscribers, tags, write)
        finally:
            await asyncio.gather(*(s.close() for s in subscribers))
    result.connect_seconds = took
    return result


def _host_port(url: str) -> tuple[str, int]:
    host, _, port = url.removeprefix("http://").rstrip("/").partition(":")
    return host, int(port)


# ---------------------------------------------------------------- report


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def _line(way: str, r: Result) -> str:
    if not r.latencies:
        return f"  {way:<24} no message delivered"
    ordered = sorted(r.latencies)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    rate = f"{r.delivered / r.span:10.0f} messages/s" if r.span > 0 else "messages/s n/a"
    return (
        f"  {way:<24} p50 {_ms(statistics.median(ordered))}   p95 {_ms(p95)}   "
        f"max {_ms(ordered[-1])}   {rate}"
    )


def _spread_line(way: str, r: Result) -> str:
    if not r.spread:
        return f"  {way:<24} no message delivered"
    fan = sum(r.spread)
    rate = f"{r.delivered / fan:10.0f} messages/s" if fan > 0 else "all at once"
    return (
        f"  {way:<24} p50 {_ms(statistics.median(r.spread))}   max {_ms(max(r.spread))}   "
        f"{rate} once the first is out"
    )


def _figures(r: Result) -> tuple[float, float]:
    median = statistics.median(r.latencies) if r.latencies else float("nan")
    rate = r.delivered / r.span if r.span > 0 else float("nan")
    return median, rate


def _ratio(ours: float, theirs: float) -> str:
    """`ours / theirs` as "N.NNx"; none when the bare figure is 0 (every frame read
    before the write's answer) or unmeasured, or when the runtime's is unmeasured (with
    a handful of subscribers, every frame can be out before the answer is read)."""
    if not theirs > 0 or not math.isfinite(theirs):
        return "n/a (bare figure is 0)"
    if not math.isfinite(ours):
        return "n/a (no runtime figure)"
    return f"{ours / theirs:.3g}x"


def _mapping(root: Path) -> Path:
    path = mapping_variant(root)
    doc = yaml.safe_load(path.read_text())
    doc["serve"]["feed"] = FEED
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def run(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("DJANGO_SETTINGS_MODULE", None)
    python = sys.executable
    run_tag = f"bench-rt-{secrets.token_hex(4)}"
    tags = [f"{run_tag} write {n + 1}" for n in range(args.writes)]
    with tempfile.TemporaryDirectory(prefix="bench-rt-") as tmp, contextlib.ExitStack() as stack:
        root = Path(tmp)
        log: IO[bytes] = stack.enter_context((root / "servers.log").open("wb"))

        def start(name: str, command: Sequence[str], child_env: dict[str, str]) -> Process:
            return stack.enter_context(running(name, command, env=child_env, cwd=root, log=log))

        try:
            django = start(
                "django sample", [python, "-m", "samples.kanban_drf", "serve", "--port", "0"], env
            )
            upstream_env = {
                **env,
                "KANBAN_URL": django.url,
                "KANBAN_TOKEN": str(django.info["token"]),
            }
            store_url = f"sqlite:///{root / 'store.sqlite3'}"
            read_token = grant(
                store_url, "bench-realtime-read", "realtime benchmark", ["data:cards:read"]
            )
            write_token = grant(store_url, "bench-realtime-write", "realtime benchmark")
            runtime = start(
                RUNTIME,
                [
                    python, "-m", "mapper", "serve", str(_mapping(root)), "--allow-unverified",
                    "--port", "0", "--ready-json", "--store", store_url,
                ],
                {**upstream_env, "A2APP_HOME": str(root / "state")},
            )  # fmt: skip
            bare = start(BARE, [python, "-m", "bench.realtime", "--serve-bare"], env)
        except (RuntimeError, OSError) as exc:
            print(f"could not start: {exc}\n{(root / 'servers.log').read_text()[-4000:]}")
            return 2

        print(
            f"Realtime fan-out: {args.subscribers} subscribers to {TOPIC}, {args.writes} "
            "writes one at a time, each received by every subscriber before the next "
            "(after a random pause of up to one fan-out interval)."
        )
        try:
            ours, payloads = asyncio.run(
                _runtime_way(runtime.url, read_token, write_token, args.subscribers, tags)
            )
            if len(payloads) != len(tags):
                raise StreamError(
                    f"the runtime delivered {len(payloads)} of {len(tags)} writes to no one"
                )
            theirs = asyncio.run(_bare_way(bare.url, args.subscribers, tags, payloads))
        except (StreamError, OSError, asyncio.IncompleteReadError) as exc:
            print(f"failed: {exc}\n{(root / 'servers.log').read_text()[-4000:]}")
            return 2

        print(
            f"\nConnected and subscribed in {ours.connect_seconds:.1f} s (runtime), "
            f"{theirs.connect_seconds:.1f} s (bare)."
        )
        print(f"\nDelivery latency, write's answer to receipt ({len(ours.latencies)} receipts):")
        print(_line(RUNTIME, ours))
        print(_line(BARE, theirs))
        (ours_p50, ours_rate), (bare_p50, bare_rate) = _figures(ours), _figures(theirs)
        print(
            f"  ratio runtime/bare: p50 {_ratio(ours_p50, bare_p50)}, "
            f"messages/s {_ratio(ours_rate, bare_rate)}"
        )
        print(
            "  (a write through the runtime wakes its process's fan-out at once; a change"
            f" another process recorded waits up to {REALTIME_INTERVAL * 1000:.0f} ms)"
        )
        print("\nFan-out spread per write, first receipt to last:")
        print(_spread_line(RUNTIME, ours))
        print(_spread_line(BARE, theirs))
        for way, r in ((RUNTIME, ours), (BARE, theirs)):
            print(f"Drops, {way}: {r.ended} stream(s) ended (queue full), "
                  f"{r.missing} message(s) not received; {r.early} receipt(s) read before "
                  "the write's answer (counted as 0 ms)")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realtime", description=__doc__)
    parser.add_argument("--subscribers", type=int, default=1000, help="SSE subscribers per way")
    parser.add_argument("--writes", type=int, default=20, help="writes fanned out per way")
    parser.add_argument(
        "--smoke", action="store_true", help="20 subscribers, 3 writes; judges nothing"
    )
    parser.add_argument("--serve-bare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_bare:
        serve_child(_bare_app())
        return 0
    if args.smoke:
        args.subscribers, args.writes = 20, 3
    # A SIGTERM unwinds like Ctrl-C, so every server is stopped.
    return unwinding(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
