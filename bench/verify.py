"""Time a full verification of the Django sample and count its requests per entity.

    .venv/bin/python -m bench.verify [--seed default|rich] [--repeat 3] [--smoke]

Starts the sample (``python -m samples.kanban_drf serve --port 0``) on 127.0.0.1
and verifies every mapping under ``mappings/`` against it, in full and with
``--read-only``, in-process through the same code as ``a2map verify`` (no stamp
is written). The baseline, measured in the same run, is the floor for the same
number of requests: that many sequential GETs of one record by id through one
pooled ``httpx.AsyncClient``, straight to the sample. The ratio says what the
verifier costs on top of the HTTP it must do. The time per phase shows where a
run goes; `operations` includes the sample's slow board report (2 s by design).
Every process started here is stopped before the program exits. ``--smoke`` runs
one read-only verification of ``kanban-drf.yaml`` once, so the tests keep the
benchmark working; its figures mean nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import start_process, stop_process
from mapper.verify import Report, VerifyOptions, run_verification
from runtime.mapping import load_mapping

ROOT = Path(__file__).resolve().parents[1]


async def _verify(path: Path, env: dict[str, str], read_only: bool) -> Report:
    mapping = load_mapping(path, env=env)
    return await run_verification(mapping, VerifyOptions(read_only=read_only))


async def _floor(url: str, token: str, requests: int) -> float:
    """Seconds for `requests` sequential GETs of one record: the least the same HTTP costs."""
    headers = {"Authorization": f"Token {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, trust_env=False) as client:
        await client.get("/api/cards/card_seed/")
        started = time.perf_counter()
        for _ in range(requests):
            (await client.get("/api/cards/card_seed/")).raise_for_status()
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.verify", description=__doc__)
    parser.add_argument("--seed", choices=("default", "rich"), default="default")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the median counts")
    parser.add_argument("--smoke", action="store_true", help="one short case, to test the bench")
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "samples.kanban_drf", "serve", "--port", "0"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryFile() as log:
        sample = start_process(
            "the Django sample", [*command, "--seed", args.seed], env=env, cwd=ROOT, log=log
        )
        try:
            url, token = sample.url, str(sample.info["token"])
            return asyncio.run(_run(url, token, args.seed, args.repeat, smoke=args.smoke))
        finally:
            stop_process(sample.popen)


async def _run(url: str, token: str, seed: str, repeat: int, *, smoke: bool = False) -> int:
    env = {"KANBAN_URL": url, "KANBAN_TOKEN": token}
    repeat = 1 if smoke else repeat
    print(f"a2map verify against the Django sample (seed {seed}), median of {repeat} run(s)\n")
    header = f"{'mapping':<26}{'mode':<11}{'claims':>7}{'passed':>8}{'unproven':>9}"
    print(header + f"{'requests':>10}{'seconds':>9}{'floor s':>9}{'ratio':>7}")
    worst = 0
    detail: Report | None = None
    # The mappings of the Django sample: the others name their own stacks' variables.
    served = [p for p in (ROOT / "mappings").glob("*.yaml") if "${KANBAN_URL" in p.read_text()]
    paths = [ROOT / "mappings" / "kanban-drf.yaml"] if smoke else served
    for path in sorted(paths):
        for read_only in (True,) if smoke else (False, True):
            reports = [await _verify(path, env, read_only) for _ in range(repeat)]
            seconds = statistics.median(r.seconds for r in reports)
            report = reports[-1]
            if report.outcome in ("refused", "aborted"):
                worst = 1  # a timing of a run that proved nothing whole is no figure
            requests = sum(report.requests.values())
            floor = statistics.median([await _floor(url, token, requests) for _ in range(repeat)])
            passed = report.count("passed")
            mode = "read-only" if read_only else "full"
            print(
                f"{path.name:<26}{mode:<11}{len(report.results):>7}{passed:>8}"
                f"{len(report.unproven):>9}{requests:>10}{seconds:>9.2f}{floor:>9.2f}"
                f"{seconds / floor if floor else 0:>7.1f}"
            )
            if path.name == "kanban-drf.yaml" and not read_only:
                detail = report
    if detail is not None:
        print("\nkanban-drf.yaml, full: requests per entity")
        for entity, count in detail.requests.items():
            print(f"  {entity:<10}{count:>6}")
        print("kanban-drf.yaml, full: wall-clock seconds per stage")
        for stage, spent in detail.timings.items():
            print(f"  {stage:<14}{spent:>6.2f}")
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
