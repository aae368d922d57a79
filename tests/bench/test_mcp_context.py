"""Smoke test of `python -m bench.mcp_context --smoke`: both servers on the kanban, the
gateway on Stripe, FastMCP's Stripe figures printed as recorded; no target judged."""

from __future__ import annotations

import re

import pytest

from bench import mcp_context


@pytest.mark.timeout(600)
def test_mcp_context_benchmark_smoke_counts_both_transcripts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = mcp_context.main(["--smoke"])
    out = capsys.readouterr().out
    assert code == 0, out
    chars = r" +[\d,]+ +[\d,]+  "
    kanban, stripe = out.split("\nstripe-mock (", 1)
    # the gateway's transcript on both apps: tools/list, three describes, a create, an operation
    steps = ("tools/list", "describe root: describe", "describe module: describe",
             "describe entity: describe", "create: records", "operation: operation")  # fmt: skip
    for part in (kanban, stripe):
        ours = part.split(f"  {mcp_context.GATEWAY}\n", 1)[1].split("\n\n", 1)[0]
        for step in steps:
            assert re.search(rf"    {re.escape(step)}.*?{chars}", ours), (step, part)
    assert re.search(rf"    describe \(operation\): describe.*?{chars}", stripe), stripe
    # FastMCP's, on the kanban only
    theirs = kanban.split(f"  {mcp_context.FASTMCP} {mcp_context.FASTMCP_VERSION}\n", 1)[1]
    assert re.search(rf"    tools/list{chars}28 tools", theirs), kanban
    assert re.search(rf"    create: cards_create .*?{chars}", theirs), kanban
    assert re.search(rf"    operation: cards_finish_create .*?{chars}", theirs), kanban
    assert mcp_context.FASTMCP not in stripe.split("Totals, stripe:")[0]  # never built in smoke
    for app in ("kanban", "stripe"):
        total = rf"{re.escape(mcp_context.GATEWAY)}: create one record [\d,]+ chars \(target"
        assert re.search(rf"Totals, {app}:\n    {total}", out), out
    assert out.count("not judged (smoke)") == 2
    measured = rf"{re.escape(mcp_context.FASTMCP)}: tools/list alone [\d,]+ chars; create one"
    assert len(re.findall(measured, out)) == 1, out
    assert re.search(r"ratio FastMCP/gateway: tools/list alone over the gateway's create "
                     r"[\d,.]+x", out), out  # fmt: skip
    recorded = "(recorded, not measured): 452 tools, tools/list 189.5 million chars, 51.7 s"
    assert recorded in out, out
