"""Write overhead of the runtime, against the floor of any Python proxy, in one run.

    .venv/bin/python -m bench.write_overhead [--requests 200] [--warmup 20]

Starts the Django sample (``--seed rich``) and writes cards to it three ways:

``direct pair``
    the upstream write itself (``POST /api/cards/`` or ``PATCH /api/cards/{id}/``)
    followed by the ``GET`` of the written record, straight to Django on one
    kept-alive connection.
``passthrough pair``
    the same two upstream requests made by a minimal proxy on the runtime's stack
    (FastAPI + one pooled ``httpx.AsyncClient`` under uvicorn): it forwards the
    body, reads the record back and copies that answer back, and does nothing
    else. A write that is reported done must at least be sent and read back, so
    this is the least any proxy can spend on an honest write. Creates and
    updates are judged against it: at most 1.10x, 1.15x for those naming a ref.
``passthrough, the runtime's requests``
    (cases whose body names a ref, and the ``finish-card`` operation) the same
    proxy making every upstream request the runtime makes for the case: a ref
    check before the write where one is made, and the receipt's label lookups
    while the write is under way. The difference between this way and the runtime
    is the runtime's own work: every write is judged at most 1.05x it (for writes
    naming no ref it is the passthrough pair), and ``finish-card`` (the call, then
    one read of the card for its receipt) at most 1.10x.
``runtime (a2map serve)``
    ``POST``/``PATCH /api/collections/cards/records[/{id}]`` on ``python -m mapper
    serve`` with the mapping variant of ``bench.common`` (limits raised),
    claiming ``upstreamChecksRef`` on the cards' refs, verified by ``a2map verify``
    first and served through its gate (so only what the stamp proves applies),
    authorised by a token of scope ``*`` created in the runtime's store before it
    starts.

Operations are timed the same way: ``finish-card`` (a ``POST`` upstream, on a
card of the run; its ``card`` param claims ``upstreamChecksRef``, proven alike) and
``count-finished`` (a ``GET``) against their direct upstream call and the
passthrough forwarding it.

Every case runs ``--runs`` times (3); each target is judged on the median of the
runs' ratios, and every run's ratio is printed.

Latencies are wall-clock times per write on one kept-alive connection per way,
the ways taking turns write by write after a warm-up. The client is the minimal
raw HTTP/1.1 client of ``bench.common``. Every card created here carries
the run's tag in its title and is deleted, straight from Django, before the
program ends; everything listens on 127.0.0.1 and every process started here is
stopped (its whole process group) before the program exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlencode

import yaml

from bench.common import (
    REPO,
    Client,
    HttpError,
    Process,
    grant,
    mapping_variant,
    pair_line,
    running,
    serve_child,
    unwinding,
    verdict,
)

# Runtime p50 over a way's p50, the median of the runs' ratios judged.
TARGET_PAIR = 1.10  # creates and updates: over the passthrough pair
TARGET_PAIR_REF = 1.15  # creates and updates naming a ref: over the passthrough pair
TARGET_OWN = 1.05  # every write: over a passthrough making the runtime's own requests
TARGET_CALL = 1.10  # finish-card: over a passthrough making the call and one read of the card
# The mapping's `cards.list` claims it, and the run's own `a2map verify` proves it.
LEFT_TO_UPSTREAM = "no ref check before the write: the upstream is proven to refuse a missing list"
REF_CLAIMS = ("list", "tags")
OPERATION_REF = ("finish-card", "card")  # claimed and proven the same way
# The runtime's peak resident memory over the whole run (every case, every run), held
# where it stood before writes left proven refs to the upstream: 90.7 MB here.
TARGET_PEAK_MB = 95.0
GRANT_ID = "bench-writes"
RUNTIME = "runtime (a2map serve)"
DIRECT_PAIR = "direct pair"
PASS_PAIR = "passthrough pair"
PASS_SAME = "passthrough, the runtime's requests"
DIRECT_CALL = "direct call"
PASS_CALL = "passthrough call"


# ---------------------------------------------------------------- the floor, as a server


def _passthrough_app(upstream: str, token: str) -> Any:
    """Forward writes; `/pair/...` also reads the written record back.

    `before=`, `during=`, `along=` and `after=` query parameters name upstream paths to
    GET (together) before the write, while it is under way, alongside the read-back,
    and after it, so that a way can make exactly the upstream requests the runtime
    makes for a case. Nothing else is done to the request.
    """
    import httpx
    from fastapi import FastAPI
    from starlette.requests import Request
    from starlette.responses import Response

    client = httpx.AsyncClient(
        base_url=upstream, headers={"Authorization": f"Token {token}"}, trust_env=False
    )
    json_type = {"Content-Type": "application/json"}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        try:
            yield
        finally:
            await client.aclose()

    def copy(answer: httpx.Response) -> Response:
        return Response(
            answer.content,
            status_code=answer.status_code,
            media_type=answer.headers.get("content-type"),
        )

    async def around(request: Request, key: str) -> None:
        paths = request.query_params.getlist(key)
        if paths:
            await asyncio.gather(*(client.get(path) for path in paths))

    async def write(request: Request, path: str) -> httpx.Response:
        body = await request.body()
        await around(request, "before")
        sent, _ = await asyncio.gather(
            client.request(
                request.method, path, content=body or None, headers=json_type if body else None
            ),
            around(request, "during"),
        )
        return sent

    async def pair(request: Request) -> Response:
        path = request.url.path.removeprefix("/pair")
        written = await write(request, path)
        if not written.is_success:
            return copy(written)
        detail = f"{path}{written.json()['id']}/" if request.method == "POST" else path
        answer, _ = await asyncio.gather(client.get(detail), around(request, "along"))
        await around(request, "after")
        return copy(answer)

    async def forward(request: Request) -> Response:
        answer = await write(request, request.url.path.removeprefix("/fwd"))
        await around(request, "after")
        return copy(answer)

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.router.add_route("/pair/{rest:path}", pair, methods=["POST", "PATCH"])
    app.router.add_route("/fwd/{rest:path}", forward, methods=["GET", "POST", "PATCH"])
    return app


# ---------------------------------------------------------------- a client that writes


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class WriteClient(Client):
    """The read benchmark's keep-alive client, with request bodies and any method."""

    def send(self, method: str, target: str, body: Any = None) -> Answer:
        self._reopen_if_closed()
        data = b"" if body is None else json.dumps(body).encode("utf-8")
        extra = b""
        if body is not None:
            extra = f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n".encode()
        line = f"{method} {target} HTTP/1.1\r\n".encode("ascii")
        self.sock.sendall(line + self.prefix[:-2] + extra + b"\r\n" + data)
        status, headers = _parse_head(self._until(b"\r\n\r\n"))
        if headers.get("transfer-encoding", "").lower().endswith("chunked"):
            parts = []
            while size := int(self._until(b"\r\n").split(b";", 1)[0], 16):
                parts.append(self._exactly(size))
                self._exactly(2)
            self._until(b"\r\n")
            payload = b"".join(parts)
        elif "content-length" in headers:
            payload = self._exactly(int(headers["content-length"]))
        elif status in (204, 304) or 100 <= status < 200:
            payload = b""
        else:
            raise HttpError(f"{method} {target}: the answer has neither a length nor chunks")
        if headers.get("connection", "").lower() == "close":
            self.sock.close()
            self.sock, self.buffer = self._connect(), b""
        return Answer(status, headers, payload)

    def expect(self, method: str, target: str, body: Any = None, status: int = 200) -> Answer:
        answer = self.send(method, target, body)
        if answer.status != status:
            raise HttpError(
                f"{method} {target} answered {answer.status}, not {status}: {answer.body[:300]!r}"
            )
        return answer


def _parse_head(raw: bytes) -> tuple[int, dict[str, str]]:
    lines = raw.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split(" ", 2)[1]), headers


# ---------------------------------------------------------------- cases and ways


@dataclass(frozen=True)
class Way:
    name: str
    run: Callable[[int], None]  # the i-th write of this way; raises when it did not land


@dataclass(frozen=True)
class Target:
    what: str
    way: str  # the runtime's p50 over this way's
    ratio: float  # at most


@dataclass(frozen=True)
class Case:
    name: str
    upstream: str  # the runtime's upstream requests, in order
    ways: list[Way]
    floor: str  # the way every ratio printed is taken against
    targets: tuple[Target, ...] = ()


def _write_targets(own: str, pair_ratio: float) -> tuple[Target, ...]:
    return (
        Target("the passthrough pair", PASS_PAIR, pair_ratio),
        Target("a passthrough making the runtime's own requests", own, TARGET_OWN),
    )


def _turns(ways: Sequence[Way], requests: int, warmup: int) -> dict[str, list[float]]:
    """Latencies in ms per way, the ways taking turns write by write."""
    times: dict[str, list[float]] = {w.name: [] for w in ways}
    for round_ in range(warmup + requests):
        for way in ways:
            started = time.perf_counter()
            way.run(round_)
            elapsed = (time.perf_counter() - started) * 1000
            if round_ >= warmup:
                times[way.name].append(elapsed)
    return times


def _around(
    before: Sequence[str] = (), after: Sequence[str] = (), along: Sequence[str] = (),
    during: Sequence[str] = (),
) -> str:  # fmt: skip
    pairs = [("before", p) for p in before] + [("after", p) for p in after]
    pairs += [("along", p) for p in along] + [("during", p) for p in during]
    return "?" + urlencode(pairs, quote_via=quote) if pairs else ""


@dataclass
class Bench:
    """The clients of one run and what the ways need to make their writes."""

    direct: WriteClient
    through: WriteClient
    runtime: WriteClient
    tag: str
    lists: tuple[str, str]
    cards: dict[str, str]  # a card of the run per way, for updates and finish-card

    def title(self, way: str, i: int) -> str:
        return f"{self.tag} {way} {i}"

    # -- creates

    def create_direct(self, body: Callable[[int], dict[str, Any]]) -> Callable[[int], None]:
        def run(i: int) -> None:
            made = self.direct.expect("POST", "/api/cards/", body(i), 201).json()
            self.direct.expect("GET", f"/api/cards/{made['id']}/")

        return run

    def create_through(
        self, body: Callable[[int], dict[str, Any]], refs: Sequence[str] = ()
    ) -> Callable[[int], None]:
        def run(i: int) -> None:
            self.through.expect("POST", "/pair/api/cards/" + _around(during=refs), body(i))

        return run

    def create_runtime(self, body: Callable[[int], dict[str, Any]]) -> Callable[[int], None]:
        def run(i: int) -> None:
            self.runtime.expect("POST", "/api/collections/cards/records", body(i))

        return run

    # -- updates

    def update_direct(self, body: Callable[[int], dict[str, Any]]) -> Callable[[int], None]:
        card = f"/api/cards/{self.cards[DIRECT_PAIR]}/"

        def run(i: int) -> None:
            self.direct.expect("PATCH", card, body(i))
            self.direct.expect("GET", card)

        return run

    def update_through(
        self, way: str, body: Callable[[int], dict[str, Any]], refs: Callable[[int], list[str]]
    ) -> Callable[[int], None]:
        card = f"/pair/api/cards/{self.cards[way]}/"

        def run(i: int) -> None:
            self.through.expect("PATCH", card + _around(during=refs(i)), body(i))

        return run

    def update_runtime(self, body: Callable[[int], dict[str, Any]]) -> Callable[[int], None]:
        record = f"/api/collections/cards/records/{self.cards[RUNTIME]}"

        def run(i: int) -> None:
            self.runtime.expect("PATCH", record, body(i))

        return run


def _cases(b: Bench) -> list[Case]:
    todo = b.lists[0]
    ref = f"/api/lists/{todo}/"

    def plain(way: str) -> Callable[[int], dict[str, Any]]:
        return lambda i: {"title": b.title(way, i), "priority": "low"}

    def with_ref(way: str) -> Callable[[int], dict[str, Any]]:
        return lambda i: {"title": b.title(way, i), "priority": "low", "list": todo}

    def retitle(way: str) -> Callable[[int], dict[str, Any]]:
        return lambda i: {"title": b.title(way, i)}

    def move(i: int) -> dict[str, Any]:
        return {"list": b.lists[i % 2]}

    def moved_to(i: int) -> list[str]:
        return [f"/api/lists/{b.lists[i % 2]}/"]

    def no_refs(i: int) -> list[str]:
        return []

    finish = {way: f"/api/cards/{card}/finish/" for way, card in b.cards.items()}
    finish_card = b.cards[RUNTIME]
    card_of = {way: f"/api/cards/{card}/" for way, card in b.cards.items()}

    def direct_finish(i: int) -> None:
        b.direct.expect("POST", finish[DIRECT_PAIR])

    def through_finish(i: int) -> None:
        b.through.expect("POST", "/fwd" + finish[PASS_PAIR])

    def through_finish_same(i: int) -> None:
        path = card_of[PASS_SAME]
        b.through.expect("POST", "/fwd" + finish[PASS_SAME] + _around(after=[path]))

    def runtime_finish(i: int) -> None:
        b.runtime.expect("POST", "/api/ops/finish-card", {"card": finish_card})

    def direct_count(i: int) -> None:
        b.direct.expect("GET", "/api/cards/finished-count/")

    def through_count(i: int) -> None:
        b.through.expect("GET", "/fwd/api/cards/finished-count/")

    def runtime_count(i: int) -> None:
        b.runtime.expect("POST", "/api/ops/count-finished", {})

    return [
        Case(
            "create",
            "POST /api/cards/, GET /api/cards/{id}/",
            [
                Way(DIRECT_PAIR, b.create_direct(plain(DIRECT_PAIR))),
                Way(PASS_PAIR, b.create_through(plain(PASS_PAIR))),
                Way(RUNTIME, b.create_runtime(plain(RUNTIME))),
            ],
            floor=PASS_PAIR,
            targets=_write_targets(PASS_PAIR, TARGET_PAIR),
        ),
        Case(
            "create, body names a list (a ref)",
            f"{{POST /api/cards/, GET the list (receipt label)}} side by side, then GET "
            f"/api/cards/{{id}}/; {LEFT_TO_UPSTREAM}",
            [
                Way(DIRECT_PAIR, b.create_direct(with_ref(DIRECT_PAIR))),
                Way(PASS_PAIR, b.create_through(with_ref(PASS_PAIR))),
                Way(PASS_SAME, b.create_through(with_ref(PASS_SAME), [ref])),
                Way(RUNTIME, b.create_runtime(with_ref(RUNTIME))),
            ],
            floor=PASS_PAIR,
            targets=_write_targets(PASS_SAME, TARGET_PAIR_REF),
        ),
        Case(
            "update (title)",
            "PATCH /api/cards/{id}/, GET /api/cards/{id}/",
            [
                Way(DIRECT_PAIR, b.update_direct(retitle(DIRECT_PAIR))),
                Way(PASS_PAIR, b.update_through(PASS_PAIR, retitle(PASS_PAIR), no_refs)),
                Way(RUNTIME, b.update_runtime(retitle(RUNTIME))),
            ],
            floor=PASS_PAIR,
            targets=_write_targets(PASS_PAIR, TARGET_PAIR),
        ),
        Case(
            "update, body names a list (a ref)",
            f"{{PATCH /api/cards/{{id}}/, GET the list (receipt label)}} side by side, then "
            f"GET /api/cards/{{id}}/; {LEFT_TO_UPSTREAM}",
            [
                Way(DIRECT_PAIR, b.update_direct(move)),
                Way(PASS_PAIR, b.update_through(PASS_PAIR, move, no_refs)),
                Way(PASS_SAME, b.update_through(PASS_SAME, move, moved_to)),
                Way(RUNTIME, b.update_runtime(move)),
            ],
            floor=PASS_PAIR,
            targets=_write_targets(PASS_SAME, TARGET_PAIR_REF),
        ),
        Case(
            "operation finish-card",
            "POST /api/cards/{id}/finish/, then GET the card (receipt); no ref check before "
            "the call: the upstream is proven to answer 404 for a missing card",
            [
                Way(DIRECT_CALL, direct_finish),
                Way(PASS_CALL, through_finish),
                Way(PASS_SAME, through_finish_same),
                Way(RUNTIME, runtime_finish),
            ],
            floor=DIRECT_CALL,
            targets=(
                Target(
                    "a passthrough making the call and one read of the card", PASS_SAME, TARGET_CALL
                ),
            ),
        ),
        Case(
            "operation count-finished",
            "GET /api/cards/finished-count/",
            [
                Way(DIRECT_CALL, direct_count),
                Way(PASS_CALL, through_count),
                Way(RUNTIME, runtime_count),
            ],
            floor=DIRECT_CALL,
        ),
    ]


# ---------------------------------------------------------------- setup, checks, clean-up


def _setup_cards(direct: WriteClient, tag: str, ways: Sequence[str]) -> dict[str, str]:
    """One card of the run per way: what its updates and finish-card calls act on."""
    cards = {}
    for way in ways:
        made = direct.expect("POST", "/api/cards/", {"title": f"{tag} {way} card"}, 201).json()
        cards[way] = str(made["id"])
    return cards


def _check(b: Bench) -> None:
    """The runtime's writes land and answer what the upstream holds, before any timing."""
    body = {"title": f"{b.tag} check", "priority": "high", "list": b.lists[0]}
    made = b.runtime.expect("POST", "/api/collections/cards/records", body)
    if "x-a2app-receipt" not in made.headers:
        raise SystemExit(f"the runtime's create sent no receipt: {made.headers}")
    record = made.json()
    stored = b.direct.expect("GET", f"/api/cards/{record['id']}/").json()
    if any(stored.get(k) != v for k, v in body.items()) or stored != {
        k: record.get(k) for k in stored
    }:
        raise SystemExit(f"the runtime answered {record}, the upstream holds {stored}")
    card = b.cards[RUNTIME]
    changed = b.runtime.expect(
        "PATCH", f"/api/collections/cards/records/{card}", {"list": b.lists[1]}
    ).json()
    stored = b.direct.expect("GET", f"/api/cards/{card}/").json()
    if changed.get("list") != b.lists[1] or stored.get("list") != b.lists[1]:
        raise SystemExit(f"the runtime's update answered {changed}, the upstream holds {stored}")
    through = b.through.expect("POST", "/pair/api/cards/", {"title": f"{b.tag} check"}).json()
    if b.direct.expect("GET", f"/api/cards/{through['id']}/").json() != through:
        raise SystemExit(f"the passthrough pair answered {through}, not the stored record")
    ran = b.runtime.expect("POST", "/api/ops/count-finished", {}).json()
    counted = b.direct.expect("GET", "/api/cards/finished-count/").json()
    if ran.get("result") != counted:
        raise SystemExit(f"count-finished answered {ran}, the upstream {counted}")


def _clean_up(direct: WriteClient, tag: str) -> int:
    """Delete every card whose title carries the run's tag; returns how many."""
    query = "?" + urlencode({"title__icontains": tag, "page_size": "1000"})
    deleted = 0
    while True:
        found = direct.expect("GET", "/api/cards/" + query).json()["results"]
        mine = [c for c in found if tag in c["title"]]
        if not mine:
            return deleted
        for card in mine:
            direct.expect("DELETE", f"/api/cards/{quote(str(card['id']), safe='')}/", status=204)
            deleted += 1


# ---------------------------------------------------------------- the run


def _report(case: Case, times: dict[str, list[float]]) -> dict[Target, float]:
    """Print one run of a case; the runtime's ratio for each of its targets."""
    floor_p50 = statistics.median(times[case.floor])
    print(f"\n{case.name}\n  runtime's upstream requests: {case.upstream}")
    for name, samples in times.items():
        line = f"  {name:<36} {pair_line(samples)}"
        p50 = statistics.median(samples)
        if name != case.floor:
            line += f"   {p50 / floor_p50:5.2f}x {case.floor}"
        if name == RUNTIME and PASS_SAME in times:
            line += f", {p50 / statistics.median(times[PASS_SAME]):5.2f}x the same requests"
        print(line)
    runtime = statistics.median(times[RUNTIME])
    return {t: runtime / statistics.median(times[t.way]) for t in case.targets}


def _judge(ratios: dict[tuple[str, Target], list[float]]) -> bool:
    """Print every target with each run's ratio and their median; True when one is missed."""
    print("\nTargets: the runtime's p50 over the way's, each run, and the median judged")
    missed = False
    for (case, target), seen in ratios.items():
        median = statistics.median(seen)
        ok = median <= target.ratio
        missed |= not ok
        runs = ", ".join(f"{r:.3f}" for r in seen)
        print(
            f"  {case}, over {target.what}: {runs}; median {median:.3f}x, "
            f"target <= {target.ratio:.2f}x: {verdict(ok)}"
        )
    return missed


def run(args: argparse.Namespace) -> int:
    base_env = dict(os.environ)
    base_env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), *filter(None, [base_env.get("PYTHONPATH")])]
    )
    base_env.pop("DJANGO_SETTINGS_MODULE", None)
    python = sys.executable
    tag = f"bench-write-{secrets.token_hex(4)}"
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-write-") as tmp, contextlib.ExitStack() as stack:
        root = Path(tmp)
        log: IO[bytes] = stack.enter_context((root / "servers.log").open("wb"))

        def start(name: str, command: Sequence[str], env: dict[str, str]) -> Process:
            return stack.enter_context(running(name, command, env=env, cwd=root, log=log))

        def client(url: str, headers: dict[str, str] | None = None) -> WriteClient:
            made = WriteClient(url, headers)
            stack.callback(made.close)
            return made

        try:
            django = start(
                "django sample",
                [python, "-m", "samples.kanban_drf", "serve", "--port", "0", "--seed", "rich"],
                base_env,
            )
            upstream_token = str(django.info["token"])
            # Registered after Django started, so it runs while Django still answers.
            stack.callback(_report_clean_up, django.url, upstream_token, tag)
            direct = client(django.url, {"Authorization": f"Token {upstream_token}"})
            upstream_env = {**base_env, "KANBAN_URL": django.url, "KANBAN_TOKEN": upstream_token}
            passthrough = start(
                "passthrough", [python, "-m", "bench.write_overhead", "--serve-passthrough"],
                upstream_env,
            )  # fmt: skip
            store_url = f"sqlite:///{root / 'store.sqlite3'}"
            token = grant(store_url, GRANT_ID, "write benchmark")
            runtime = start(
                RUNTIME,
                [
                    python, "-m", "mapper", "serve", str(_verified(root, upstream_env)),
                    "--port", "0", "--ready-json", "--store", store_url,
                ],
                {**upstream_env, "A2APP_HOME": str(root / "state")},
            )  # fmt: skip
            lists = [
                str(row["id"])
                for row in direct.expect("GET", "/api/lists/?page_size=2").json()["results"]
            ]
            if len(lists) < 2:
                raise RuntimeError(f"the sample has fewer than two lists: {lists}")
            bench = Bench(
                direct=direct,
                through=client(passthrough.url),
                runtime=client(runtime.url, {"X-A2App-Token": token}),
                tag=tag,
                lists=(lists[0], lists[1]),
                cards=_setup_cards(direct, tag, [DIRECT_PAIR, PASS_PAIR, PASS_SAME, RUNTIME]),
            )
            _check(bench)
        except (RuntimeError, OSError) as exc:
            print(f"could not start: {exc}\n{(root / 'servers.log').read_text()[-4000:]}")
            return 2

        print(
            f"Writes: {args.runs} run(s) of {args.requests} timed writes per way after "
            f"{args.warmup} warm-up writes, the ways taking turns; one kept-alive connection "
            "per way."
        )
        ratios: dict[tuple[str, Target], list[float]] = {}
        for n in range(args.runs):
            print(f"\n---- run {n + 1} of {args.runs}")
            for case in _cases(bench):
                times = _turns(case.ways, args.requests, args.warmup)
                for target, ratio in _report(case, times).items():
                    ratios.setdefault((case.name, target), []).append(ratio)
        failed = _judge(ratios)
        failed |= _judge_peak(runtime)
    return 1 if failed else 0


def _judge_peak(runtime: Process) -> bool:
    """Print the runtime's peak resident memory; True when it is over the target."""
    status = Path(f"/proc/{runtime.popen.pid}/status")
    if not status.exists():
        print("\nRuntime peak memory: not measured (no /proc on this system)")
        return False
    peak = next(
        int(line.split()[1]) / 1024
        for line in status.read_text().splitlines()
        if line.startswith("VmHWM:")
    )
    ok = peak <= TARGET_PEAK_MB
    print(f"\nRuntime peak memory: {peak:.1f} MB; target <= {TARGET_PEAK_MB:g} MB: {verdict(ok)}")
    return not ok


def _verified(root: Path, env: dict[str, str]) -> Path:
    """The benchmark's mapping, claiming the refs the upstream checks itself, proven by
    `a2map verify` (its stamp beside it): the runtime is served through its gate, and
    relies only on what the stamp proves."""
    mapping = mapping_variant(root)
    doc = yaml.safe_load(mapping.read_text())
    for name in REF_CLAIMS:
        doc["entities"]["cards"]["fields"][name]["upstreamChecksRef"] = True
    operation, param = OPERATION_REF
    (op,) = (op for op in doc["operations"] if op["name"] == operation)
    op["params"][param]["upstreamChecksRef"] = True
    mapping.write_text(yaml.safe_dump(doc, sort_keys=False))
    done = subprocess.run(
        [sys.executable, "-m", "mapper", "verify", str(mapping)],
        env=env, cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"a2map verify refused the benchmark's mapping:\n{done.stdout}")
    return mapping


def _report_clean_up(url: str, token: str, tag: str) -> None:
    # A connection of its own: an interrupted way may have left an answer half read.
    try:
        direct = WriteClient(url, {"Authorization": f"Token {token}"})
        try:
            print(f"\nDeleted the {_clean_up(direct, tag)} cards this run created.")
        finally:
            direct.close()
    except (HttpError, OSError) as exc:
        print(f"\nCould not delete every card of the run ({tag}): {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.write_overhead", description=__doc__)
    parser.add_argument("--requests", type=int, default=200, help="timed writes per way and case")
    parser.add_argument("--warmup", type=int, default=20, help="untimed writes per way first")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of every case; the median ratio is judged"
    )
    parser.add_argument("--serve-passthrough", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_passthrough:
        serve_child(_passthrough_app(os.environ["KANBAN_URL"], os.environ["KANBAN_TOKEN"]))
        return 0
    # A SIGTERM unwinds like Ctrl-C, so every card is deleted and every server stopped.
    return unwinding(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
