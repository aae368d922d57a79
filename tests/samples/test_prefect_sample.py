"""The Prefect sample keeps the samples' start contract: ready line, own group, seeded once."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from samples.prefect_server import server as prefect_server
from samples.stacks_common.launch import StackError
from tests.fixtures._procs import group_members
from tests.fixtures.stacks import start_prefect


def names(url: str, things: str) -> list[str]:
    answer = httpx.post(f"{url}/api/{things}/filter", json={"limit": 200}, timeout=30)
    assert answer.status_code == 200, answer.text
    return sorted(str(r["name"]) for r in answer.json())


def test_seeded_once_reused_as_is_and_stopped_with_its_group(tmp_path: Path) -> None:
    data = tmp_path / "prefect"
    with start_prefect(data_dir=data) as first:
        assert first.token is None and first.url.startswith("http://127.0.0.1:")
        expected = sorted(prefect_server.variable(n)["name"] for n in range(3))
        assert names(first.url, "variables") == expected
        assert names(first.url, "flows") == ["flow-00", "flow-01"]
        assert names(first.url, "work_pools") == ["pool-00"]
        made = httpx.post(f"{first.url}/api/variables/", json={"name": "kept", "value": 1})
        assert made.status_code == 201, made.text
        pid = first.process.pid
    deadline = time.monotonic() + 10
    while group_members(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group_members(pid) == []
    with start_prefect(data_dir=data) as again:
        # Not seeded twice: the seeded records and the one made since, nothing more.
        assert names(again.url, "variables") == sorted([*expected, "kept"])


def test_a_missing_install_names_the_setup_script(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("A2APP_SAMPLES_CACHE", str(tmp_path))
    with pytest.raises(
        StackError, match=r"Prefect 3\.9\.1 is not installed .*run samples/setup\.sh"
    ):
        prefect_server.prefect_executable()
