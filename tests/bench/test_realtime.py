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
        rate = r"(\d+ messages/s|messages/s n/a)"
        latency = rf"  {re.escape(way)} +p50 +[\d.]+ ms +p95 +[\d.]+ ms +max +[\d.]+ ms +{rate}"
        assert re.search(latency, out), out
        spread = rf"  {re.escape(way)} +p50 +[\d.]+ ms +max +[\d.]+ ms +"
        assert len(re.findall(spread, out)) == 1, out  # its spread line
        # every subscriber received every write: 20 subscribers, 3 writes
        assert f"Drops, {way}: 0 stream(s) ended (queue full), 0 message(s) not received" in out
    # with 20 subscribers the bare endpoint can deliver every frame before its own
    # answer is read: its p50 is then 0 ms and the p50 ratio is said to be unavailable;
    # so can the runtime, whose rate is then unmeasured
    ratio = r"([\d.e+-]+x|n/a \(bare figure is 0\)|n/a \(no runtime figure\))"
    assert re.search(rf"ratio runtime/bare: p50 {ratio}, messages/s {ratio}", out), out
