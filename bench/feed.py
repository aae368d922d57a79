"""The runtime's change feed against a real PocketBase, beside a bare walk, in one run.

    .venv/bin/python -m bench.feed [--collections 1,10,50] [--records 2000]

Starts PocketBase 0.40.6 (the binary of ``samples.pocketbase_kanban``) on a new, empty
data directory and, for each E of ``--collections``:

- creates E collections of ``--records`` records each (superuser-only rules; text,
  number, ``created``/``updated`` fields), through PocketBase's batch API
  (``POST /api/batch``, switched on in the settings for the run, 500 creates a batch);
- probes them (``python -m mapper probe <url> --header 'Authorization: <superuser
  token>'``), adds ``serve.feed: {entities: <the E collections>, interval, budget}``,
  verifies the mapping (``python -m mapper verify``, its stamp beside it) and serves it
  (``python -m mapper serve --ready-json``, its own SQLite store, a grant of scope ``*``
  created in it first);
- walks the same collections directly, pages of 200 on one kept-alive connection (the
  feed's own page size): the bare walk, the baseline the feed's walk is printed beside;
- waits for the feed's first walk (its baseline) and takes its time from PocketBase's
  request log (the feed's requests are the runtime's, sent as ``python-httpx``);
- changes detected per second: K updates spread over the collections, made in one
  batch, then the time until all K ``<entity>.updated`` events are listed on
  ``GET /api/_a2app/events``;
- feed lag: single updates at spread-out times, each timed from just before its write
  to the first poll of the events route (every 50 ms) that lists its event;
- polling cost: the feed's upstream requests per minute, counted in PocketBase's
  request log, beside the declared budget.

The feed's cheap path, reading newest first and stopping at the first record it knows
unchanged, needs a fresh stamp proving ``updated`` moves on every update and sorts an
updated record first (``feedModified``, proven by the verifier on records of its own):
verified, each poll reads so, and every tenth is a complete walk. ``--unverified``
serves the mapping without verifying it (``--allow-unverified``): every poll is then a
complete walk, the feed's costliest path.

The one target: the feed stays within its declared budget (the most requests it sent in
any 60 s, or over the whole measured span when shorter), judged unless ``--smoke``.
Exit 0 when met, 1 when missed, 2 when something could not be started. Everything
listens on 127.0.0.1; every process started here is stopped before the program exits.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import math
import os
import random
import re
import secrets
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode

import yaml

from bench.common import REPO, Client, Process, grant, running, unwinding, verdict
from samples.pocketbase_kanban import schema as pb_schema
from samples.pocketbase_kanban import server as pocketbase
from samples.stacks_common.launch import Launch, free_port, spawn, stop, wait_ready

PAGE = 200  # the feed's page size (runtime.service._feed_walk.PAGE)
BATCH = 500  # creates per batch request
APP_ID = "feedbench"
GRANT_ID = "bench-feed"
FEED_AGENT = "python-httpx"  # the runtime's upstream client, as PocketBase logs it
POLL_EVERY = 0.05  # seconds between two reads of the events route
BARE_WALKS = 3  # the bare walk's best of
UPSTREAM_TIMEOUT = 60  # seconds: the mapping's upstream.timeoutSeconds


@dataclass(frozen=True, slots=True)
class Upstream:
    url: str
    token: str

    def call(self, method: str, path: str, body: Any = None) -> Any:
        return pocketbase.call(self.url, method, path, self.token, body)


# ---------------------------------------------------------------- PocketBase


@contextlib.contextmanager
def _pocketbase(data: Path) -> Iterator[Upstream]:
    binary = pocketbase.pocketbase_binary()
    data.mkdir()
    password = "pw" + secrets.token_hex(16)
    dirs = pocketbase._dirs(data)
    upsert = [str(binary), "superuser", "upsert", pocketbase.EMAIL, password, *dirs]
    subprocess.run(upsert, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    port = free_port()
    command = [str(binary), "serve", f"--http=127.0.0.1:{port}", *dirs]
    child = spawn(Launch(command, data, pocketbase.HEALTH), data, verbose=False)
    try:
        if not wait_ready(child, port, pocketbase.HEALTH, time.monotonic() + 30):
            raise RuntimeError("PocketBase did not start")
        url = f"http://127.0.0.1:{port}"
        upstream = Upstream(url, pocketbase.superuser_token(url, password))
        batch = {"enabled": True, "maxRequests": BATCH, "timeout": 60, "maxBodySize": 0}
        upstream.call("PATCH", "/api/settings", {"batch": batch})
        yield upstream
    finally:
        stop(child)


def _collection(name: str) -> dict[str, Any]:
    fields = [
        {"name": "title", "type": "text", "max": 200},
        {"name": "n", "type": "number"},
        {"name": "note", "type": "text"},
        *pb_schema.TIMESTAMPS,
    ]
    return {"name": name, "type": "base", "fields": fields, **pb_schema.RULES}


def _batch(upstream: Upstream, requests: list[dict[str, Any]]) -> None:
    for start in range(0, len(requests), BATCH):
        upstream.call("POST", "/api/batch", {"requests": requests[start : start + BATCH]})


def _create(upstream: Upstream, names: Sequence[str], records: int) -> float:
    """Create the collections and their records; the seconds the records took."""
    for name in names:
        upstream.call("POST", "/api/collections", _collection(name))
    started = time.perf_counter()
    for name in names:
        creates = [
            {
                "method": "POST",
                "url": f"/api/collections/{name}/records",
                "body": {"title": f"{name} record {i}", "n": i, "note": "seed " * 8},
            }
            for i in range(records)
        ]
        _batch(upstream, creates)
    return time.perf_counter() - started


def _logged_feed_requests(data: Path, since: float) -> list[tuple[float, float, str]]:
    """(start, end in epoch seconds, url) of every request PocketBase logged from the
    runtime's upstream client since `since`, oldest first. Read from its log database once
    it has stopped: it writes its request log in batches, the last of them when it stops."""
    db = data / "pb_data" / "auxiliary.db"
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT created, json_extract(data, '$.execTime'), json_extract(data, '$.url') "
            "FROM _logs WHERE json_extract(data, '$.userAgent') LIKE ?",
            (FEED_AGENT + "%",),
        ).fetchall()
    finally:
        connection.close()
    found = []
    for created, exec_ms, url in rows:
        end = _pb_time(created)
        start = end - float(exec_ms or 0) / 1000
        if start >= since:
            found.append((start, end, str(url)))
    return sorted(found)


def _pb_time(text: str) -> float:
    parsed = dt.datetime.strptime(text.replace("Z", ""), "%Y-%m-%d %H:%M:%S.%f")
    return parsed.replace(tzinfo=dt.UTC).timestamp()


# ---------------------------------------------------------------- the mapping and the runtime


def _mapping(root: Path, upstream: Upstream, names: Sequence[str], feed: dict[str, Any]) -> Path:
    out = root / "feed.yaml"
    env = {**os.environ, "PB_BENCH_TOKEN": upstream.token}
    probe = [
        sys.executable, "-m", "mapper", "probe", upstream.url,
        "--header", "Authorization: ${PB_BENCH_TOKEN}",
        "-o", str(out), "--app-id", APP_ID, "--json",
    ]  # fmt: skip
    done = subprocess.run(probe, env=env, cwd=REPO, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"probe failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    doc = yaml.safe_load(out.read_text())
    missing = [n for n in names if n not in doc["entities"]]
    if missing:
        raise RuntimeError(f"the probe did not map {missing}")
    serve = doc.setdefault("serve", {})
    serve["feed"] = {"entities": list(names), **feed}
    serve["rateLimits"] = {"data": 1_000_000, "ops": 1_000_000}
    # PocketBase shares a small machine with the runtime and the verifier: room to answer
    doc["upstream"]["timeoutSeconds"] = UPSTREAM_TIMEOUT
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    return out


def _verify(mapping: Path, env: dict[str, str]) -> None:
    """`a2map verify`: its stamp beside the mapping proves the sort the feed's newest-first
    path relies on."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "mapper", "verify", str(mapping)]
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"a2map verify refused the mapping:\n{done.stdout[-3000:]}")
    summary = next((line.strip() for line in done.stdout.splitlines() if " passed, " in line), "")
    print(f"setup: verified in {time.perf_counter() - started:.1f} s ({summary})")


def _env_names(mapping: Path) -> tuple[str, str]:
    upstream = yaml.safe_load(mapping.read_text())["upstream"]
    url = re.match(r"\$\{(\w+)", upstream["baseUrl"])
    token = re.match(r"\$\{(\w+)", upstream["auth"]["value"])
    if url is None or token is None:
        raise RuntimeError(f"unexpected upstream in the probed mapping: {upstream}")
    return url.group(1), token.group(1)


def _baselined(store_url: str, names: Sequence[str], timeout: float) -> float | None:
    """When the feed's baseline of every entity was stored (epoch seconds), waiting for it;
    None when it was not within `timeout` seconds."""
    from runtime.store import Store

    deadline = time.monotonic() + timeout
    with Store.open(store_url) as store:
        while time.monotonic() < deadline:
            done = [
                s.baseline_at if s else None for s in (store.feed_state(APP_ID, n) for n in names)
            ]
            stamps = [at for at in done if at is not None]
            if len(stamps) == len(names):
                return max(_epoch(at) for at in stamps)
            time.sleep(0.1)
    return None


def _epoch(at: dt.datetime) -> float:
    return (at if at.tzinfo else at.replace(tzinfo=dt.UTC)).timestamp()


# ---------------------------------------------------------------- measuring


def _bare_walk(upstream: Upstream, names: Sequence[str]) -> tuple[float, int, int]:
    """Walk every collection as the feed does (pages of 200 until a short one) on one
    kept-alive connection: seconds, records, requests."""
    client = Client(upstream.url, {"Authorization": upstream.token})
    records = requests = 0
    started = time.perf_counter()
    try:
        for name in names:
            page = 1
            while True:
                query = urlencode({"page": page, "perPage": PAGE, "skipTotal": "true"})
                items = client.json(f"/api/collections/{name}/records?{query}")["items"]
                requests += 1
                records += len(items)
                if len(items) < PAGE:
                    break
                page += 1
    finally:
        client.close()
    return time.perf_counter() - started, records, requests


class Events:
    """Reads the runtime's events route from a cursor on, remembering when each update
    of a record was first listed."""

    def __init__(self, url: str, token: str) -> None:
        self.client = Client(url, {"X-A2App-Token": token})
        self.cursor = "0"
        self.updated: dict[str, float] = {}  # record id -> when its update was seen
        self.drain()
        self.updated.clear()

    def drain(self) -> None:
        while True:
            answer = self.client.json(f"/api/_a2app/events?since={self.cursor}")
            now = time.perf_counter()
            for event in answer["events"]:
                if event["type"].endswith(".updated"):
                    self.updated.setdefault(str(event["payload"]["id"]), now)
            if answer["nextCursor"] == self.cursor:
                return
            self.cursor = answer["nextCursor"]

    def close(self) -> None:
        self.client.close()


def _ids(upstream: Upstream, names: Sequence[str], per: int) -> list[tuple[str, str]]:
    found = []
    for name in names:
        query = urlencode({"perPage": per, "skipTotal": "true", "sort": "n"})
        items = upstream.call("GET", f"/api/collections/{name}/records?{query}")["items"]
        found += [(name, str(item["id"])) for item in items]
    return found


def _update(name: str, record_id: str, value: int) -> dict[str, Any]:
    return {
        "method": "PATCH",
        "url": f"/api/collections/{name}/records/{record_id}",
        "body": {"n": value},
    }


def _detection(
    upstream: Upstream, events: Events, targets: list[tuple[str, str]], timeout: float
) -> tuple[float, float, int]:
    """K updates in one batch; seconds of the write, seconds from its end until every
    update is listed, and how many were listed."""
    started = time.perf_counter()
    _batch(upstream, [_update(n, i, 1_000_000 + k) for k, (n, i) in enumerate(targets)])
    written = time.perf_counter()
    wanted = {i for _, i in targets}
    while time.perf_counter() - written < timeout:
        events.drain()
        if wanted <= events.updated.keys():
            break
        time.sleep(POLL_EVERY)
    seen = len(wanted & events.updated.keys())
    last = max((events.updated[i] for i in wanted if i in events.updated), default=written)
    return written - started, last - written, seen


def _lags(
    upstream: Upstream,
    events: Events,
    targets: list[tuple[str, str]],
    window: float,
    timeout: float,
) -> list[float]:
    """One update per target at a random time within `window` seconds; each one's lag."""
    rng = random.Random(7)
    begin = time.perf_counter()
    plan = sorted((begin + rng.uniform(0, window), n, i) for n, i in targets)
    sent: dict[str, float] = {}
    while time.perf_counter() - begin < window + timeout:
        now = time.perf_counter()
        while plan and plan[0][0] <= now:
            _, name, record_id = plan.pop(0)
            sent[record_id] = time.perf_counter()
            upstream.call("PATCH", f"/api/collections/{name}/records/{record_id}", {"n": 2_000_000})
        events.drain()
        if not plan and sent.keys() <= events.updated.keys():
            break
        time.sleep(POLL_EVERY)
    return [events.updated[i] - t for i, t in sent.items() if i in events.updated]


def _most_in_a_minute(times: list[float]) -> int:
    most, first = 0, 0
    for last, at in enumerate(times):
        while times[first] <= at - 60:
            first += 1
        most = max(most, last - first + 1)
    return most


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


# ---------------------------------------------------------------- one E


@dataclass(frozen=True, slots=True)
class Plan:
    records: int
    updates: int
    lag_samples: int
    lag_window: float
    interval: int
    smoke: bool
    verify: bool


@dataclass(slots=True)
class Figures:
    bare: tuple[float, int, int] = (0.0, 0, 0)  # seconds, records, requests
    detection: tuple[int, float, float, int] = (0, 0.0, 0.0, 0)  # K, write s, seen s, seen
    lags: list[float] = field(default_factory=list)
    lag_samples: int = 0
    since: float = 0.0  # the runtime's start
    baseline_done: float = 0.0
    measured_until: float = 0.0


def _one(root: Path, size: int, plan: Plan, log: IO[bytes]) -> bool:
    """Measure the feed over `size` collections on a PocketBase of their own; True when
    the budget was kept (or not judged)."""
    names = [f"feed{size}_{k:02d}" for k in range(size)]
    pages = math.ceil((plan.records + 1) / PAGE)  # a full last page is followed by an empty one
    budget = size * pages * math.ceil(60 / plan.interval)
    print(f"\n==== E = {size} collection(s) x {plan.records} records")
    data = root / f"pocketbase-{size}"
    figures = Figures()
    with _pocketbase(data) as upstream:
        seeded = _create(upstream, names, plan.records)
        print(
            f"setup: {size * plan.records} records created through POST /api/batch "
            f"({BATCH} creates a batch) in {seeded:.1f} s"
        )
        started = time.perf_counter()
        mapping = _mapping(root, upstream, names, {"interval": plan.interval, "budget": budget})
        print(
            f"setup: probed in {time.perf_counter() - started:.1f} s; serve.feed: interval "
            f"{plan.interval} s, budget {budget} requests/min (a complete walk of every "
            f"entity, {size * pages} requests, at each of {math.ceil(60 / plan.interval)} "
            "polls a minute)"
        )
        figures.bare = min(_bare_walk(upstream, names) for _ in range(BARE_WALKS))
        store = f"sqlite:///{root}/store-{size}.sqlite3"
        token = grant(store, GRANT_ID, "feed benchmark")
        url_var, token_var = _env_names(mapping)
        env = {**os.environ, url_var: upstream.url, token_var: upstream.token}
        command = [
            sys.executable, "-m", "mapper", "serve", str(mapping), "--port", "0",
            "--ready-json", "--store", store,
        ]  # fmt: skip
        if plan.verify:
            _verify(mapping, env)
        else:
            command.append("--allow-unverified")
        figures.since = time.time()
        with running("runtime", command, env=env, cwd=REPO, log=log) as runtime:
            _measure(upstream, runtime, token, names, plan, store, figures)
    # stopped: PocketBase has written the last of its request log
    return _report(figures, _logged_feed_requests(data, figures.since), plan, budget)


def _measure(
    upstream: Upstream,
    runtime: Process,
    token: str,
    names: list[str],
    plan: Plan,
    store: str,
    figures: Figures,
) -> None:
    size = len(names)
    walk_timeout = 60 + size * plan.records / 500
    baselined = _baselined(store, names, walk_timeout)
    if baselined is None:
        raise RuntimeError(f"the feed took no baseline within {walk_timeout:.0f} s")
    figures.baseline_done = baselined
    events = Events(runtime.url, token)
    try:
        per = math.ceil((plan.updates + plan.lag_samples) / size)
        targets = _ids(upstream, names, per)
        random.Random(size).shuffle(targets)
        k = min(plan.updates, len(targets) - plan.lag_samples)
        timeout = 4 * plan.interval + walk_timeout
        figures.detection = (k, *_detection(upstream, events, targets[:k], timeout))
        lag_targets = targets[k : k + plan.lag_samples]
        figures.lag_samples = len(lag_targets)
        figures.lags = _lags(upstream, events, lag_targets, plan.lag_window, timeout)
    finally:
        events.close()
    figures.measured_until = time.time()


def _report(
    figures: Figures, logged: list[tuple[float, float, str]], plan: Plan, budget: int
) -> bool:
    bare_s, bare_records, bare_requests = figures.bare
    bare_rate = bare_records / bare_s
    print(
        f"bare walk   : {bare_requests} requests, {bare_records} records in {_ms(bare_s)}: "
        f"{bare_rate:,.0f} records/s"
    )
    first_walk = logged[:bare_requests]
    if len(first_walk) == bare_requests:
        # from the start of its first request to its baseline stored
        feed_s = figures.baseline_done - first_walk[0][0]
        print(
            f"feed walk   : {bare_requests} requests, baseline stored {_ms(feed_s)} after its "
            f"first request: "
            f"{bare_records / feed_s:,.0f} records/s; {feed_s / bare_s:.2f}x the bare walk's "
            f"time, {bare_s / feed_s:.2f}x its rate"
        )
    else:
        print(f"feed walk   : only {len(first_walk)} of its {bare_requests} requests logged")
    # after the baseline: complete walks (no sort), and newest-first reads (sort=-updated)
    complete = [r for r in logged[bare_requests:] if "sort=" not in r[2]]
    newest = len(logged) - bare_requests - len(complete)
    later = [
        complete[j + bare_requests - 1][1] - complete[j][0]
        for j in range(0, len(complete) - bare_requests + 1, bare_requests)
    ]
    if newest:
        print(
            f"newest first: {newest} requests read newest first after the baseline "
            "(each poll but every tenth)"
        )
    if later:
        median = statistics.median(later)
        print(
            f"feed walks  : {len(later)} complete walks after the baseline, first request "
            f"to last answer as PocketBase logged them: median {_ms(median)}, "
            f"{bare_records / median:,.0f} records/s; {median / bare_s:.2f}x the bare walk's "
            "time"
        )
    k, write_s, seen_s, seen = figures.detection
    print(
        f"detection   : {seen}/{k} updates (one batch, {_ms(write_s)}) listed as events "
        f"{_ms(seen_s)} after the write: {seen / max(seen_s, 1e-9):,.1f} changes/s"
    )
    lags = sorted(figures.lags)
    if lags:
        p50 = statistics.median(lags)
        p95 = lags[min(len(lags) - 1, math.ceil(0.95 * len(lags)) - 1)]
        print(
            f"feed lag    : {len(lags)}/{figures.lag_samples} samples, p50 {_ms(p50)}, "
            f"p95 {_ms(p95)}, max {_ms(lags[-1])} (events route read every "
            f"{_ms(POLL_EVERY)}; interval {plan.interval} s)"
        )
    else:
        print(f"feed lag    : 0/{figures.lag_samples} samples seen")
    start, until = figures.baseline_done, figures.measured_until
    window = [end for begin, end, _ in logged if start <= begin <= until]
    span = until - start
    per_minute = len(window) / span * 60
    most = _most_in_a_minute(window) if span >= 60 else len(window)
    over = "most in any 60 s" if span >= 60 else f"all of the {span:.0f} s span"
    ok = most <= budget
    judged = "not judged (smoke)" if plan.smoke else verdict(ok)
    print(
        f"polling cost: {len(window)} feed requests in {span:.1f} s after the baseline: "
        f"{per_minute:,.0f} requests/min; {over}: {most}; budget {budget}/min: {judged}"
    )
    print(
        f"              ({len(logged)} feed requests in all: the baseline, {len(later)} "
        f"complete walks after it, {newest} newest-first reads)"
    )
    return ok or plan.smoke


# ---------------------------------------------------------------- main


def run(args: argparse.Namespace) -> int:
    sizes = [int(s) for s in str(args.collections).split(",")]
    plan = Plan(
        records=args.records,
        updates=args.updates,
        lag_samples=args.lag_samples,
        lag_window=args.lag_window,
        interval=args.interval,
        smoke=args.smoke,
        verify=not args.unverified,
    )
    if plan.verify:
        print(
            "Change feed on PocketBase 0.40.6, verified first (a2map verify): its stamp "
            "proves the sort by `updated`, so the feed reads newest first and stops at the "
            "first record it knows unchanged; every tenth poll is a complete walk."
        )
    else:
        print(
            "Change feed on PocketBase 0.40.6, served unverified: the feed's newest-first "
            "path needs a fresh stamp proving the sort by `updated`, so every poll is a "
            "complete walk (the full-walk path)."
        )
    failed = False
    with tempfile.TemporaryDirectory(prefix="a2app-feed-bench-") as tmp:
        root = Path(tmp)
        with (root / "servers.log").open("wb") as log:
            try:
                for size in sizes:
                    failed |= not _one(root, size, plan, log)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                print(f"could not run: {exc}")
                log.flush()
                print((root / "servers.log").read_text(errors="replace")[-4000:])
                return 2
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.feed", description=__doc__)
    parser.add_argument("--collections", default="1,10,50", help="values of E, comma-separated")
    parser.add_argument("--records", type=int, default=2000, help="records per collection")
    parser.add_argument("--updates", type=int, default=200, help="K: updates detected together")
    parser.add_argument("--lag-samples", type=int, default=30, help="updates timed one by one")
    parser.add_argument("--lag-window", type=float, default=60.0, help="seconds they spread over")
    parser.add_argument("--interval", type=int, default=2, help="serve.feed interval (s)")
    parser.add_argument(
        "--unverified",
        action="store_true",
        help="serve without verifying first: every poll a complete walk",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="1 collection x 50 records, no target judged"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.collections, args.records, args.updates = "1", 50, 10
        args.lag_samples, args.lag_window = 5, 4.0
    return unwinding(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
