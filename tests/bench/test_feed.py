"""Smoke test of `python -m bench.feed --smoke`: one collection of 50 records on a real
PocketBase, verified first and then unverified, every figure printed, no target judged."""

from __future__ import annotations

import re

import pytest

from bench import feed


def _figures(out: str) -> None:
    assert "==== E = 1 collection(s) x 50 records" in out, out
    assert re.search(r"\nbare walk   : 1 requests, 50 records in \d+ ms: [\d,]+ records/s", out)
    assert re.search(r"\nfeed walk   : 1 requests, .* [\d,]+ records/s; \d+\.\d\dx the bare", out)
    detected = re.search(r"\ndetection   : (\d+)/10 updates .* ([\d.,]+) changes/s", out)
    assert detected and int(detected.group(1)) == 10, out
    lag = re.search(r"\nfeed lag    : (\d+)/5 samples, p50 (\d+) ms, p95 (\d+) ms", out)
    assert lag and int(lag.group(1)) == 5 and int(lag.group(2)) <= int(lag.group(3)), out
    cost = re.search(r"\npolling cost: (\d+) feed requests .* budget (\d+)/min: not judged", out)
    assert cost and int(cost.group(1)) > 0 and int(cost.group(2)) == 30, out


@pytest.mark.timeout(300)
def test_feed_benchmark_smoke_verified_reads_newest_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = feed.main(["--smoke"])
    out = capsys.readouterr().out
    assert code == 0, out
    _figures(out)
    assert "\nsetup: verified in " in out, out
    newest = re.search(r"\nnewest first: (\d+) requests", out)
    assert newest and int(newest.group(1)) > 0, out


@pytest.mark.timeout(300)
def test_feed_benchmark_smoke_unverified_walks_everything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = feed.main(["--smoke", "--unverified"])
    out = capsys.readouterr().out
    assert code == 0, out
    _figures(out)
    assert "full-walk path" in out and "\nnewest first:" not in out, out
    walks = re.search(r"\nfeed walks  : (\d+) complete walks after the baseline", out)
    assert walks and int(walks.group(1)) > 0, out
