"""Smoke test of `python -m bench.verify`: one read-only verification, no timing judged."""

from __future__ import annotations

import pytest

from bench import verify


@pytest.mark.timeout(300)
def test_verify_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = verify.main(["--smoke"])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [line for line in out.splitlines() if line.startswith("kanban-drf.yaml")]
    assert len(rows) == 1 and "read-only" in rows[0], out
    claims, passed = (int(n) for n in rows[0].split()[2:4])
    assert claims > 0 and passed > 0, out
