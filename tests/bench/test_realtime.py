"""Smoke test of `python -m bench.realtime --smoke`: both ways fan out, no timing judged."""

from __future__ import annotations

import re

import pytest

from bench import realtime


@pytest.mark.timeout(300)
def test_realtime_benchmark_smoke_fans_out_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    code = realtime.main(["--smoke"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Delivery latency, write's answer to receipt (60 receipts):" in out, out
    for way in (realtime.RUNTIME, realtime.BARE):
        latency = (
            rf"  {re.escape(way)} +p50 +[\d.]+ ms +p95 +[\d.]+ ms +max +[\d.]+ ms +\d+ messages/s"
        )
        assert re.search(latency, out), out
        spread = rf"  {re.escape(way)} +p50 +[\d.]+ ms +max +[\d.]+ ms +"
        assert len(re.findall(spread, out)) == 1, out  # its spread line
        # every subscriber received every write: 20 subscribers, 3 writes
        assert f"Drops, {way}: 0 stream(s) ended (queue full), 0 message(s) not received" in out
    assert re.search(r"ratio runtime/bare: p50 [\d.e+-]+x, messages/s [\d.e+-]+x", out), out
