"""Run class-A (or class-C) conformance checks against any A2App URL.

    python -m tests.conformance URL --full-token T --readonly-token T [--only 1-9,12]
        [--class C]

The server must serve the reference model (mappings/conformance-kanban.yaml)
from fresh state: the checks change data and use an idempotency key. Class C
needs its app side too: the model's class-C triggers over the Django sample's
`due-today` seed (tests/fixtures/runtime.py, `with_class_c_triggers`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .runner import SUITE, load_suite, run, select

SUITES = {"A": SUITE, "C": Path(__file__).with_name("class_c.yaml")}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance")
    parser.add_argument("url")
    parser.add_argument(
        "--full", "--full-token", required=True, help="token of a grant with scope *"
    )
    parser.add_argument(
        "--readonly", "--readonly-token", required=True,
        help="token of the grant cred_ro (data:cards:read data:lists:read)",
    )  # fmt: skip
    parser.add_argument("--only", help="check numbers, e.g. 1-9,12-16")
    parser.add_argument("--class", dest="klass", choices=sorted(SUITES), default="A")
    args = parser.parse_args()
    checks = select(load_suite(SUITES[args.klass]), args.only)
    results = run(checks, args.url, {"full": args.full, "readonly": args.readonly})
    for r in results:
        mark = "ok  " if r.ok else "FAIL"
        print(
            f"{mark} #{r.check.n:<2} {r.check.name}"
            + ("" if r.ok else f": {'; '.join(r.failures)}")
        )
    failed = sum(not r.ok for r in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
