"""Read overhead of the runtime, against the floor of any Python proxy, in one run.

    .venv/bin/python -m bench.read_overhead [--requests 300] [--warmup 30] [--smoke]

Starts the Django sample (``--seed rich``) and reads it three ways:

``direct``
    the upstream request itself, straight to Django.
``passthrough``
    the same upstream request through a minimal proxy on the runtime's stack
    (FastAPI + one pooled ``httpx.AsyncClient``, served by uvicorn exactly as
    ``runtime/web/_serve.py`` serves the runtime) that forwards the path and query,
    adds the upstream token and copies the answer back: no other logic.
``runtime (a2map serve)``
    the protocol request to ``python -m mapper serve --allow-unverified`` with a
    variant of ``mappings/kanban-drf.yaml`` whose filters and sort are marked
    proven (so a fully pushed-down read lets the upstream page) and whose data
    rate limit is raised so that the limiter never refuses the benchmark's own
    requests. No stamp matches the variant, hence the flag; it changes no read
    path. The targets are judged on this one.
``runtime app, TCP_NODELAY``
    the same mapping and the same app (``runtime.web.build_state`` with
    ``allow_unverified``, and ``runtime.web.create_app``), served like the
    floors: on a listening socket created with ``IPPROTO_TCP``, so asyncio turns
    Nagle's algorithm off for its connections. ``runtime/web/_serve.py`` creates
    its socket without naming the protocol, which leaves Nagle on; this way shows
    what the runtime's own code costs apart from that.

Each runtime case is paired with the upstream request the runtime makes to
answer it (a page of 30, one record, the pushed-down filter and sort, or the
one scan of up to 1,000 records that a local filter needs), so the passthrough
is the least any proxy must spend on the same answer. Describe (root and one
entity) is compared with a bare FastAPI endpoint, served the same way, that
returns the runtime's own describe document as a ``JSONResponse``. Local
filter evaluation is measured in-process on copies of the seed's cards.

Latencies are wall-clock times per request on one keep-alive connection, with
the ways interleaved request by request so that drift hits them alike, after a
warm-up. Throughput uses concurrent keep-alive connections. The clients are
minimal raw HTTP/1.1 clients, so the figures are not a client library's cost.
Everything listens on 127.0.0.1 and every process started here is stopped
(its whole process group) before the program exits.

``--smoke`` runs every way and case with a handful of requests and judges no
target (the exit code is 0 unless something could not be started or answered
wrongly): the tests run it so that the benchmark cannot break unnoticed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from bench.common import (
    CHUNKED,
    MAPPING,
    REPO,
    Client,
    HttpError,
    Process,
    mapping_variant,
    pair_line,
    running,
    serve_child,
    status_and_length,
    unwinding,
    verdict,
)

PUSHED_FILTER = 'priority = "high" && done = false'
PUSHED_SORT = "-created"
LOCAL_FILTER = '(priority = "high" || priority = "urgent") && title !~ "login"'
RECORD_ID = "card_r001"
SCAN_SIZE = 1000  # the mapping's pagination.maxSize: the page size of a local scan

TARGET_READ_RATIO = 1.25  # runtime p50 / passthrough p50, pushed-down reads
TARGET_DESCRIBE_RATIO = 0.9  # runtime / bare FastAPI, describe throughput
TARGET_EVAL_RATE = 200_000  # records per second, local filter evaluation


def _query(**params: str) -> str:
    return "?" + urlencode(params, quote_via=quote) if params else ""


@dataclass(frozen=True)
class ReadCase:
    name: str
    upstream: str  # what the runtime asks Django for, to answer `runtime`
    runtime: str
    pushed_down: bool  # judged against TARGET_READ_RATIO


READS = [
    ReadCase(
        "list",
        "/api/cards/" + _query(page_size="30", page="1"),
        "/api/collections/cards/records",
        pushed_down=True,
    ),
    ReadCase(
        "get",
        f"/api/cards/{RECORD_ID}/",
        f"/api/collections/cards/records/{RECORD_ID}",
        pushed_down=True,
    ),
    ReadCase(
        "filtered, pushed down",
        "/api/cards/"
        + _query(priority="high", done="false", ordering="-created", page_size="30", page="1"),
        "/api/collections/cards/records" + _query(filter=PUSHED_FILTER, sort=PUSHED_SORT),
        pushed_down=True,
    ),
    ReadCase(
        "filtered, evaluated locally",
        "/api/cards/" + _query(page_size=str(SCAN_SIZE), page="1"),
        "/api/collections/cards/records" + _query(filter=LOCAL_FILTER),
        pushed_down=False,
    ),
]
DESCRIBES = [
    ("describe root", "/api/_a2app/describe"),
    ("describe entity", "/api/_a2app/describe/board/cards"),
]


# ---------------------------------------------------------------- the floors, as servers


def _passthrough_app(upstream: str, token: str) -> Any:
    import httpx
    from fastapi import FastAPI
    from starlette.requests import Request
    from starlette.responses import Response

    client = httpx.AsyncClient(
        base_url=upstream, headers={"Authorization": f"Token {token}"}, trust_env=False
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        try:
            yield
        finally:
            await client.aclose()

    async def forward(request: Request) -> Response:
        url = httpx.URL(request.url.path, query=request.url.query.encode("ascii"))
        answer = await client.get(url)
        return Response(
            answer.content,
            status_code=answer.status_code,
            media_type=answer.headers.get("content-type"),
        )

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.router.add_route("/{rest:path}", forward, methods=["GET"])
    return app


def _bare_app(documents: dict[str, Any]) -> Any:
    from fastapi import FastAPI
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    for path, document in documents.items():

        async def endpoint(request: Request, document: Any = document) -> JSONResponse:
            return JSONResponse(document)

        app.router.add_route(path, endpoint, methods=["GET"])
    return app


def _runtime_app(mapping: Path) -> Any:
    """The runtime's own app, built as `python -m mapper serve --allow-unverified` builds it.

    Unverified like the `a2map serve` way: the variant is not the checked-in mapping,
    so no stamp matches it, and its filters and sort carry `proven: true` themselves.
    Serving it unverified changes no read path (the identity document says
    `verified: false`, log lines are prefixed), so the figures are the served ones.
    """
    from runtime.web import ServeOptions, build_state, create_app

    options = ServeOptions(
        mapping_path=mapping, store_url=os.environ["BENCH_STORE"], allow_unverified=True
    )
    state, _ = build_state(options)
    return create_app(state)


# ---------------------------------------------------------------- throughput, raw HTTP/1.1


async def _hammer(url: str, target: str, total: int, concurrency: int) -> float:
    """Requests per second for `total` GETs of `target` over `concurrency` connections."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    request = f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode("ascii")
    shares = [
        total // concurrency + (1 if i < total % concurrency else 0) for i in range(concurrency)
    ]

    async def worker(count: int) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            for _ in range(count):
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status, length = status_and_length(head[:-4], target)
                if length == CHUNKED:
                    while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                        await reader.readexactly(size + 2)
                    await reader.readuntil(b"\r\n")
                else:
                    await reader.readexactly(length)
                if status != 200:
                    raise HttpError(f"GET {target} answered {status}")
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in shares))
    return total / (time.perf_counter() - started)


# ---------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Way:
    name: str
    client: Client
    target: str


def _interleaved(ways: Sequence[Way], requests: int, warmup: int) -> dict[str, list[float]]:
    """Latencies in ms per way, the ways taking turns request by request."""
    times: dict[str, list[float]] = {w.name: [] for w in ways}
    for round_ in range(warmup + requests):
        for way in ways:
            started = time.perf_counter()
            status, _ = way.client.get(way.target)
            elapsed = (time.perf_counter() - started) * 1000
            if status != 200:
                raise HttpError(f"{way.name}: GET {way.target} answered {status}")
            if round_ >= warmup:
                times[way.name].append(elapsed)
    return times


def _ids(doc: Any) -> list[str]:
    return [str(item["id"]) for item in doc["items"]] if "items" in doc else [str(doc["id"])]


def _upstream_ids(doc: Any) -> list[str]:
    return [str(item["id"]) for item in doc["results"]] if "results" in doc else [str(doc["id"])]


def _check_answers(direct: Client, runtime: Client) -> None:
    """The runtime answers what the upstream holds, before any timing counts."""
    for case in READS:
        ours = _ids(runtime.json(case.runtime))
        theirs = _upstream_ids(direct.json(case.upstream))
        if case.pushed_down:
            expected = theirs
        else:
            rows = direct.json(case.upstream)["results"]
            expected = [
                r["id"]
                for r in rows
                if r["priority"] in ("high", "urgent") and "login" not in r["title"].lower()
            ]
        if ours != expected or not ours:
            raise SystemExit(f"{case.name}: the runtime answered {ours}, expected {expected}")


def _evaluation_rate(cards: list[dict[str, Any]], records: int) -> tuple[float, int]:
    from runtime.mapping import load_mapping
    from runtime.query import EntityResolver, compile_filter, parse_filter

    mapping = load_mapping(MAPPING, resolve_env=False)
    predicate = compile_filter(
        parse_filter(LOCAL_FILTER), EntityResolver(mapping.entities["cards"], mapping.entities)
    )
    rows = [dict(cards[i % len(cards)], id=f"card_{i:07d}") for i in range(records)]
    best, hits = float("inf"), 0
    for _ in range(5):
        started = time.perf_counter()
        hits = sum(1 for r in rows if predicate(r))
        best = min(best, time.perf_counter() - started)
    return records / best, hits


RUNTIME = "runtime (a2map serve)"
RUNTIME_APP = "runtime app, TCP_NODELAY"


def run(args: argparse.Namespace) -> int:
    base_env = dict(os.environ)
    base_env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [base_env.get("PYTHONPATH")])]
    )
    base_env.pop("DJANGO_SETTINGS_MODULE", None)
    python = sys.executable
    me = [python, "-m", "bench.read_overhead"]
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-read-") as tmp, contextlib.ExitStack() as stack:
        root = Path(tmp)
        log = stack.enter_context((root / "servers.log").open("wb"))

        def start(name: str, command: Sequence[str], env: dict[str, str]) -> Process:
            return stack.enter_context(running(name, command, env=env, cwd=root, log=log))

        def client(url: str, headers: dict[str, str] | None = None) -> Client:
            made = Client(url, headers)
            stack.callback(made.close)
            return made

        try:
            django = start(
                "django sample",
                [python, "-m", "samples.kanban_drf", "serve", "--port", "0", "--seed", "rich"],
                base_env,
            )
            token = str(django.info["token"])
            upstream_env = {**base_env, "KANBAN_URL": django.url, "KANBAN_TOKEN": token}
            passthrough = start("passthrough", [*me, "--serve-passthrough"], upstream_env)
            mapping = mapping_variant(root)
            runtime = start(
                RUNTIME,
                [
                    python, "-m", "mapper", "serve", str(mapping), "--port", "0", "--ready-json",
                    "--store", f"sqlite:///{root / 'store.sqlite3'}", "--allow-unverified",
                ],
                {**upstream_env, "A2APP_HOME": str(root / "state")},
            )  # fmt: skip
            runtime_app = start(
                RUNTIME_APP,
                [*me, "--serve-runtime", str(mapping)],
                {
                    **upstream_env,
                    "A2APP_HOME": str(root / "state-app"),
                    "BENCH_STORE": f"sqlite:///{root / 'store-app.sqlite3'}",
                },
            )
            direct = client(django.url, {"Authorization": f"Token {token}"})
            through = client(passthrough.url)
            ours = {RUNTIME: client(runtime.url), RUNTIME_APP: client(runtime_app.url)}
            for each in ours.values():
                _check_answers(direct, each)
            documents = {path: ours[RUNTIME].json(path) for _, path in DESCRIBES}
            (root / "describe.json").write_text(json.dumps(documents))
            bare = start(
                "bare FastAPI", [*me, "--serve-bare", str(root / "describe.json")], base_env
            )
            floor = client(bare.url)
        except (RuntimeError, OSError) as exc:
            print(f"could not start: {exc}\n{(root / 'servers.log').read_text()[-4000:]}")
            return 2

        print(
            f"Reads: {args.requests} timed requests per way after {args.warmup} warm-up "
            "requests, the ways taking turns; one kept-alive connection per way. Both "
            "runtime ways serve the mapping variant unverified (--allow-unverified): "
            "no stamp matches it, and its pushdowns are marked proven in the file."
        )
        if args.smoke:
            print("Smoke run: too few requests to judge; targets are reported, not judged.")
        for case in READS:
            times = _interleaved(
                [
                    Way("direct", direct, case.upstream),
                    Way("passthrough", through, case.upstream),
                    *(Way(name, each, case.runtime) for name, each in ours.items()),
                ],
                args.requests,
                args.warmup,
            )
            floor_p50 = statistics.median(times["passthrough"])
            print(f"\n{case.name}   (upstream request: {case.upstream})")
            for name, samples in times.items():
                line = f"  {name:<26} {pair_line(samples)}"
                if name in ours:
                    ratio = statistics.median(samples) / floor_p50
                    line += f"   {ratio:5.2f}x passthrough"
                    if case.pushed_down:
                        ok = ratio <= TARGET_READ_RATIO
                        failed |= name == RUNTIME and not ok
                        line += f", target <= {TARGET_READ_RATIO}x: {verdict(ok)}"
                    else:
                        line += " (a local scan: no target)"
                print(line)

        print(
            f"\nDescribe: latency as above; throughput over {args.concurrency} kept-alive "
            f"connections, {args.throughput} requests per round, best of {args.rounds} rounds."
        )
        servers = {"bare FastAPI": bare.url, RUNTIME: runtime.url, RUNTIME_APP: runtime_app.url}
        for name, path in DESCRIBES:
            times = _interleaved(
                [
                    Way("bare FastAPI", floor, path),
                    *(Way(way, each, path) for way, each in ours.items()),
                ],
                args.requests,
                args.warmup,
            )
            rates: dict[str, float] = dict.fromkeys(servers, 0.0)
            for _ in range(args.rounds):
                for way, url in servers.items():
                    rate = asyncio.run(_hammer(url, path, args.throughput, args.concurrency))
                    rates[way] = max(rates[way], rate)
            print(f"\n{name}   ({path})")
            for way, samples in times.items():
                line = f"  {way:<26} {pair_line(samples)}   {rates[way]:8,.0f} req/s"
                if way in ours:
                    ratio = rates[way] / rates["bare FastAPI"]
                    ok = ratio >= TARGET_DESCRIBE_RATIO
                    failed |= way == RUNTIME and not ok
                    line += f"   {ratio:5.2f}x bare, target >= {TARGET_DESCRIBE_RATIO}x: "
                    line += verdict(ok)
                print(line)

        cards = direct.json("/api/cards/" + _query(page_size=str(SCAN_SIZE)))["results"]
        rate, hits = _evaluation_rate(cards, args.records)
        ok = rate >= TARGET_EVAL_RATE
        failed |= not ok
        print(
            f"\nLocal evaluation of {LOCAL_FILTER!r}: {rate:,.0f} records/s over "
            f"{args.records:,} records ({hits:,} match); target >= {TARGET_EVAL_RATE:,}: "
            f"{verdict(ok)}"
        )
    return 1 if failed and not args.smoke else 0


SMOKE = {"requests": 5, "warmup": 1, "throughput": 40, "rounds": 1, "records": 2_000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.read_overhead", description=__doc__)
    parser.add_argument("--requests", type=int, default=300, help="timed requests per case")
    parser.add_argument("--warmup", type=int, default=30, help="untimed requests per case first")
    parser.add_argument("--throughput", type=int, default=1000, help="requests per round")
    parser.add_argument("--rounds", type=int, default=3, help="throughput rounds per way")
    parser.add_argument("--concurrency", type=int, default=8, help="connections for throughput")
    parser.add_argument("--records", type=int, default=200_000, help="records for local evaluation")
    parser.add_argument(
        "--smoke", action="store_true", help="a few requests per way, no target judged"
    )
    parser.add_argument("--serve-passthrough", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", metavar="DOCUMENTS", help=argparse.SUPPRESS)
    parser.add_argument("--serve-runtime", metavar="MAPPING", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.smoke:
        vars(args).update(SMOKE)
    if args.serve_runtime:
        serve_child(_runtime_app(Path(args.serve_runtime)))
        return 0
    if args.serve_passthrough:
        serve_child(_passthrough_app(os.environ["KANBAN_URL"], os.environ["KANBAN_TOKEN"]))
        return 0
    if args.serve_bare:
        serve_child(_bare_app(json.loads(Path(args.serve_bare).read_text())))
        return 0
    return unwinding(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
