"""Smoke test of `python -m bench.read_overhead --smoke`: every way and case, no timing judged."""

from __future__ import annotations

import re

import pytest

from bench import read_overhead


@pytest.mark.timeout(300)
def test_read_benchmark_smoke_runs_every_way(capsys: pytest.CaptureFixture[str]) -> None:
    code = read_overhead.main(["--smoke"])
    out = capsys.readouterr().out
    assert code == 0, out
    for case in [*(c.name for c in read_overhead.READS), *(n for n, _ in read_overhead.DESCRIBES)]:
        assert f"\n{case}   (" in out, out
    for way in (read_overhead.RUNTIME, read_overhead.RUNTIME_APP):
        # one latency line per read case and per describe case, each with its ratio
        ratios = re.findall(rf"  {re.escape(way)} +p50 .* (\d+\.\d\d)x (passthrough|bare)", out)
        assert len(ratios) == len(read_overhead.READS) + len(read_overhead.DESCRIBES), out
    assert "Local evaluation of " in out and "records/s" in out
