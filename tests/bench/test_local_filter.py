"""Smoke test of `bench/local_filter.py`: a few hundred records, no rate judged."""

from __future__ import annotations

import pytest

from bench import local_filter


def test_local_filter_benchmark_runs_and_agrees_with_plain_python(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert local_filter.main(["300"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"filter:  {local_filter.FILTER}")
    for label in ("mixed records", "every comparison runs"):
        line = next(line for line in out.splitlines() if line.strip().startswith(label))
        assert "records/s compiled" in line and "300 records" in line
