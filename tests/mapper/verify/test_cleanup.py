"""Interrupted runs: a killed one leaves tagged records that the next run sweeps; a
terminated one cleans up after itself. Both are checked on the upstream directly."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.fixtures.servers import KanbanServer

from .support import ROOT, cli_env, copy_mapping, marked, run_verify, upstream_state, verify_command

KILL_AFTER_RECORDS = 3
WAIT_SECONDS = 60


def start_and_wait_for_records(kanban: KanbanServer, mapping: Path) -> subprocess.Popen[bytes]:
    """A verification in a child process, once it has created a few records upstream."""
    process = subprocess.Popen(
        verify_command(mapping),
        env=cli_env(kanban),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + WAIT_SECONDS
    while len(marked(upstream_state(kanban))) < KILL_AFTER_RECORDS:
        if process.poll() is not None or time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError("the run created no records in time")
        time.sleep(0.02)
    return process


def test_a_killed_run_is_cleaned_up_by_the_next(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    before = upstream_state(kanban)
    process = start_and_wait_for_records(kanban, mapping)
    os.killpg(process.pid, signal.SIGKILL)  # no finally, no cleanup: a hard stop
    process.wait(10)
    left = marked(upstream_state(kanban))
    assert len(left) >= KILL_AFTER_RECORDS, "the kill came too late to leave anything behind"

    # The killed run started seconds ago: within the lease it may still be going, so a
    # second run leaves its records alone and says so.
    report = tmp_path / "report.json"
    done = run_verify(mapping, kanban, "--json", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    cleanup = json.loads(report.read_text())["cleanup"]
    assert cleanup["sweptFromEarlierRuns"] == {}
    assert sum(cleanup["leftForRecentRuns"].values()) == len(left)
    assert "marked by runs that may still be going" in done.stdout
    assert marked(upstream_state(kanban)) == left

    done = run_verify(mapping, kanban, "--json", str(report), "--sweep-after", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    swept = json.loads(report.read_text())["cleanup"]["sweptFromEarlierRuns"]
    assert sum(swept.values()) >= len(left)
    after = upstream_state(kanban)
    assert marked(after) == []
    assert after == before  # the seed is as it was: the runs wrote only their own records


def test_a_negative_lease_is_a_usage_error(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    done = run_verify(mapping, kanban, "--sweep-after", "-1")
    assert done.returncode == 2
    assert "--sweep-after must be 0 or more seconds" in done.stderr


def test_a_terminated_run_cleans_up_after_itself(kanban: KanbanServer, tmp_path: Path) -> None:
    mapping = copy_mapping("kanban-drf.yaml", tmp_path)
    before = upstream_state(kanban)
    process = start_and_wait_for_records(kanban, mapping)
    os.killpg(process.pid, signal.SIGTERM)  # what a CI system sends when a job is cancelled
    assert process.wait(60) == 2
    assert upstream_state(kanban) == before
