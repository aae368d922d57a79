"""`a2map lint`: exit 0 valid, 1 invalid, 2 usage."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_checked_in_mappings_pass() -> None:
    files = sorted(str(p) for p in (ROOT / "mappings").glob("*.yaml"))
    result = runner.invoke(app, ["lint", *files])
    assert result.exit_code == 0, result.output
    assert result.output.count(": ok (") == len(files)


def test_whole_invalid_corpus_is_refused() -> None:
    files = sorted((ROOT / "tests" / "runtime" / "mapping" / "invalid").glob("*.yaml"))
    result = runner.invoke(app, ["lint", *map(str, files)])
    assert result.exit_code == 1
    for path in files:
        expected = path.with_suffix(".expected").read_text().splitlines()
        assert f"{path}: invalid" in result.output
        for line in expected:
            assert line.split(": ", 1)[1] in result.output


def test_one_invalid_file_fails_the_run() -> None:
    good = str(ROOT / "mappings" / "kanban-drf.yaml")
    bad = str(ROOT / "tests" / "runtime" / "mapping" / "invalid" / "04-wrong-format-version.yaml")
    assert runner.invoke(app, ["lint", good, bad]).exit_code == 1


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert runner.invoke(app, ["lint"]).exit_code == 2
    assert runner.invoke(app, ["lint", str(tmp_path / "missing.yaml")]).exit_code == 2
