"""`a2map serve` ends normally when it is told to stop: exit 0, and it says which signal;
it refuses mappings it cannot serve together, naming each."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from mapper.cli import app
from tests.fixtures.runtime import REPO, start_runtime

MAPPING = REPO / "mappings" / "kanban-drf.yaml"


@dataclass(frozen=True)
class Unstarted:
    """Serving needs the upstream's address, not the upstream: it is read per request."""

    url: str = "http://127.0.0.1:9"
    token: str | None = "unused"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=str)
def test_a_stop_signal_ends_serving_with_exit_0(signum: signal.Signals) -> None:
    with start_runtime(MAPPING, Unstarted()) as rt:
        os.kill(rt.pid, signum)
        assert rt.process.wait(30) == 0
        assert f"stopped by {signum.name}" in rt.stderr()


def _copy(directory: Path, name: str, app_id: str) -> Path:
    doc = yaml.safe_load(MAPPING.read_text())
    doc["app"]["id"] = app_id
    path = directory / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _serve(*args: str) -> Result:
    env = {"KANBAN_TOKEN": "unused", "KANBAN_URL": "http://127.0.0.1:9"}
    return CliRunner().invoke(app, ["serve", *args, "--port", "0"], env=env)


def test_two_mappings_with_one_app_id_are_refused_naming_both(tmp_path: Path) -> None:
    one, two = _copy(tmp_path, "a.yaml", "same"), _copy(tmp_path, "b.yaml", "same")
    result = _serve(str(tmp_path), "--allow-unverified", "--store", f"sqlite:///{tmp_path}/s")
    assert result.exit_code == 2
    assert "two mappings declare the app id 'same'" in result.stderr
    assert str(one) in result.stderr and str(two) in result.stderr


def test_the_gate_names_every_unverified_mapping(tmp_path: Path) -> None:
    one, two = _copy(tmp_path, "a.yaml", "app-a"), _copy(tmp_path, "b.yaml", "app-b")
    result = _serve(str(one), str(two), "--store", f"sqlite:///{tmp_path}/s")
    assert result.exit_code == 2
    assert "refused: 2 mappings are not verified" in result.stderr
    assert f"`a2map verify {one}`" in result.stderr and f"`a2map verify {two}`" in result.stderr


@pytest.mark.parametrize(
    ("given", "message"),
    [("missing.yaml", "no such mapping file"), ("empty", "no *.yaml mapping in the directory")],
)
def test_a_path_that_names_no_mapping_is_a_usage_error(
    tmp_path: Path, given: str, message: str
) -> None:
    (tmp_path / "empty").mkdir()
    result = _serve(str(MAPPING), str(tmp_path / given), "--allow-unverified")
    assert result.exit_code == 2 and message in result.stderr
