"""`a2map verify` end to end against the real Django sample (`samples/kanban_drf`)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mapper.cli import app
from runtime.mapping import load_mapping, load_stamp, stamp_path
from tests.fixtures.servers import KanbanServer, free_port

from .support import MAPPINGS, ROOT, copy_mapping, marked, run_verify, upstream_state


@pytest.mark.parametrize("source", MAPPINGS, ids=lambda p: p.name)
def test_every_checked_in_mapping_verifies_against_a_fresh_sample(
    source: Path, kanban: KanbanServer, tmp_path: Path
) -> None:
    mapping = copy_mapping(source.name, tmp_path)
    before = upstream_state(kanban)
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    done = run_verify(mapping, kanban, "--json", str(report), "--junit", str(junit))
    assert done.returncode == 0, done.stdout + done.stderr
    stamp = load_stamp(stamp_path(mapping))
    env = {"KANBAN_URL": kanban.url, "KANBAN_TOKEN": kanban.token}
    assert stamp is not None and stamp.fresh_for(load_mapping(mapping, env=env))
    assert not stamp.read_only and kanban.token not in stamp_path(mapping).read_text()
    doc = json.loads(report.read_text())
    assert doc["outcome"] == "verified" and doc["summary"]["failed"] == 0
    assert doc["cleanup"]["leftovers"] == [] and doc["cleanup"]["removed"] > 0
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("errors") == "0"
    assert upstream_state(kanban) == before  # nothing of the run is left, nothing else changed
    assert not (ROOT / "mappings" / stamp_path(source).name).exists()


def test_read_only_proves_reads_and_writes_nothing(
    kanban_rich: KanbanServer, tmp_path: Path
) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    before = upstream_state(kanban_rich)
    done = run_verify(mapping, kanban_rich, "--read-only")
    # The seed's two lists share one board: reads alone cannot prove that filter, so the
    # run is partly verified (exit 1), and its stamp proves the rest.
    assert done.returncode == 1, done.stdout + done.stderr
    assert "PARTLY VERIFIED" in done.stdout and "filter.board.=" in done.stdout
    stamp = load_stamp(stamp_path(mapping))
    assert stamp is not None and stamp.read_only
    assert "not run: --read-only" in {c.reason for c in stamp.not_proven}
    assert stamp.filter_proven("cards", "title", "~") and stamp.sort_proven("cards", "due")
    assert "[read-only]" in done.stdout and upstream_state(kanban_rich) == before


def test_an_upstream_dropping_a_field_is_refused_with_the_fix(
    kanban_factory: object, tmp_path: Path
) -> None:
    server = kanban_factory(fault="drop-field", fault_on="writes")  # type: ignore[operator]
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    stamp_path(mapping).write_text("{}")  # a stamp from an earlier run must not survive
    report, corrected = tmp_path / "report.json", tmp_path / "corrected.yaml"
    done = run_verify(mapping, server, "--json", str(report), "--write-corrected", str(corrected))
    assert done.returncode == 1, done.stdout + done.stderr
    # The stamp from the earlier run is gone; in its place, a partial stamp of what held.
    stamp = load_stamp(stamp_path(mapping))
    assert stamp is not None and stamp.partial
    assert "partly verified: stamp written for the proven part" in done.stdout
    refused = {r.claim: r for r in stamp.refused}
    assert refused["entities.cards.write.create"].scope == "writes"
    assert {r.entity for r in stamp.refused} == {"cards"}, refused
    failed = {c["claim"]: c["failure"] for c in json.loads(report.read_text())["checks"]
              if c["outcome"] == "failed"}  # fmt: skip
    create = failed["entities.cards.write.create"]
    assert create["type"] == "WriteNotPersisted" and create["wrong"] == "upstream"
    assert "due: sent" in create["message"] and create["request"].startswith("GET /api/cards/")
    assert '"due":null' in create["response"]
    assert "readOnly: true" in corrected.read_text().split("due:")[1].splitlines()[0]
    # The copy also records what the run learned where the mapping said nothing.
    said = re.search(r"corrected copy: .* \((\d+) change\(s\): (\d+) correction\(s\) of "
                     r"refused claims, (\d+) learned\)", done.stdout)  # fmt: skip
    assert said is not None, done.stdout
    applied, fixes, learned = map(int, said.groups())
    assert fixes >= 1 and learned >= 1 and applied <= fixes + learned
    lists = corrected.read_text().split("\n  lists:")[1].split("\n  cards:")[0]
    assert "upstreamChecksRef: true" in lists  # lists.board: Django refuses a missing board
    assert mapping.read_text() == (ROOT / "mappings" / "kanban-drf.yaml").read_text()
    assert not marked(upstream_state(server))


def test_refused_credentials_are_a_refusal_without_the_secret(
    kanban: KanbanServer, tmp_path: Path
) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    wrong = "wrong-token-0123456789abcdef"
    done = run_verify(mapping, kanban, KANBAN_TOKEN=wrong)
    assert done.returncode == 1
    assert "upstream.auth: the upstream refused the configured credentials" in done.stdout
    assert wrong not in done.stdout + done.stderr
    assert not stamp_path(mapping).exists()  # refused credentials leave nothing proven


def test_an_unreachable_upstream_is_exit_2(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    done = run_verify(mapping, kanban, KANBAN_URL=f"http://127.0.0.1:{free_port()}")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unreachable" in done.stdout and not stamp_path(mapping).exists()
    # one message, not a line per claim that could not run
    assert len(done.stdout.splitlines()) <= 6, done.stdout


runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.yaml"], "no such mapping file"),
        (["{m}", "--only", "nothing"], "--only names no entity: nothing"),
        (["{m}", "--scope", "cards,nothing"], "--scope names no entity: nothing"),
        (["{m}", "--only", "cards", "--scope", "lists"], "--only and --scope exclude each other"),
        (["{m}", "--write-corrected", "{m}"], "never rewrites a mapping"),
        (["{m}", "--read-only", "--include-destructive"], "exclude each other"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    argv = ["verify", *(a.format(m=mapping) for a in args)]
    result = runner.invoke(app, argv, env={"KANBAN_URL": "http://127.0.0.1:9", "KANBAN_TOKEN": "t"})
    assert result.exit_code == 2 and message in result.output
