"""`a2map probe` as a process: what a probe of a spec file loads, and its plain arguments
read exactly as typer reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mapper.cli import _plain_probe, _probe_plainly, app

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "tests" / "mapper" / "probe" / "payloads" / "drf-openapi.json"

# What a probe of a spec file never needs: the HTTP stack and the live probe, the runtime's
# upstream client, query planner, store and web, the stamp, `pydantic` (typer's option
# checks), and the compiled schema validator, which only a large mapping needs.
NOT_LOADED = ("httpx", "jsonschema_rs", "pydantic", "sqlalchemy", "alembic", "fastapi", "lark")
NOT_LOADED_OF_OURS = (
    "runtime.upstream", "runtime.query", "runtime.store", "runtime.service", "runtime.web",
    "runtime.mapping._stamp", "mapper.probe.live._http", "mapper.probe.live._html",
    "mapper.probe.sources._speclinks", "mapper.probe.decide._observe", "mapper.verify",
)  # fmt: skip


def _imported(stderr: str) -> set[str]:
    """The modules `python -X importtime` says it imported."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def test_a_spec_file_probe_loads_only_what_it_uses(tmp_path: Path) -> None:
    out = tmp_path / "kanban.yaml"
    command = [sys.executable, "-X", "importtime", "-m", "mapper", "probe",
               "--openapi", str(SPEC), "-o", str(out), "--app-id", "kanban", "--json"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["ok"] is True and out.is_file()
    loaded = _imported(done.stderr)
    assert "runtime.mapping" in loaded and "mapper.probe" in loaded  # the list is read right
    assert sorted(m for m in loaded if m.split(".")[0] in NOT_LOADED) == []
    assert sorted(m for m in loaded if m.startswith(NOT_LOADED_OF_OURS)) == []


# ------------------------------------------------ plain arguments, read as typer reads them

PLAIN = [
    [],
    ["--json"],
    ["--json", "--json"],
    ["http://127.0.0.1:8000/api/"],
    ["--openapi", "spec.json", "-o", "out.yaml"],
    ["--output", "out.yaml", "--openapi", "https://example.invalid/openapi.json", "--json"],
    ["--app-id", "kanban", "http://127.0.0.1:8000", "--json", "--openapi", "spec.yaml"],
    ["--header", "Authorization: Token $TOKEN", "--header", "X-A: b", "http://h"],
    ["--collection", "/cards", "--collection", "/lists", "http://h", "-o", "a/b.yaml"],
]
# Left to typer, with its help and errors: anything but the plain forms.
NOT_PLAIN = [
    ["--help"],
    ["--openapi=spec.json"],
    ["-o", "a.yaml", "-o", "b.yaml"],
    ["--openapi", "--json"],
    ["http://a", "http://b"],
    ["--bogus"],
    ["--", "http://a"],
    [""],
    ["-o"],
    ["-oout.yaml"],
]


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def fake(url: str | None, output: Path, **options: Any) -> int:
        calls.append({"url": url, "output": output, **options})
        return 3

    monkeypatch.setattr("mapper.probe.probe_command", fake)
    return calls


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_plain_arguments_reach_the_command_as_typer_passes_them(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _calls(monkeypatch)
    result = CliRunner().invoke(app, ["probe", *args])
    values = _plain_probe(args)
    assert values is not None
    with pytest.raises(SystemExit) as exited:
        _probe_plainly(values)
    assert result.exit_code == exited.value.code == 3
    typer_call, plain_call = calls
    assert plain_call == typer_call


@pytest.mark.parametrize("args", NOT_PLAIN, ids=" ".join)
def test_other_arguments_are_left_to_typer(args: list[str]) -> None:
    assert _plain_probe(args) is None
