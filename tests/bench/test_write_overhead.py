"""Smoke test of `python -m bench.write_overhead`: a few writes per way, no timing judged."""

from __future__ import annotations

import pytest

from bench import write_overhead


@pytest.mark.timeout(300)
def test_write_benchmark_runs_and_cleans_up(capsys: pytest.CaptureFixture[str]) -> None:
    code = write_overhead.main(["--requests", "3", "--warmup", "1", "--runs", "1"])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    for case in ("create", "update (title)", "operation finish-card", "operation count-finished"):
        assert f"\n{case}\n" in out
    assert out.count(write_overhead.RUNTIME) == 6
    # Every target is printed with its run's ratio, judged or not.
    assert out.count("target <= ") == 10, out  # the nine ratios and the peak memory
    assert "Runtime peak memory: " in out
    assert "Deleted the " in out and "cards this run created." in out
