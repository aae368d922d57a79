"""`a2map lint` checks a trigger's filter with the runtime's own grammar."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()


def _with_filter(tmp_path: Path, filter_text: str) -> str:
    path = tmp_path / "triggered.yaml"
    triggers = f"  triggers:\n    - {{type: card.x, entity: cards, filter: '{filter_text}'}}\n"
    path.write_text(BASE.rstrip("\n") + "\n" + triggers)
    return str(path)


def test_a_filter_naming_an_undeclared_field_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lint", _with_filter(tmp_path, "dew <= @todayEnd")])
    assert result.exit_code == 1
    assert "serve.triggers[0].filter" in result.output and "dew" in result.output


def test_a_filter_the_entity_answers_passes(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lint", _with_filter(tmp_path, "due <= @todayEnd")])
    assert result.exit_code == 0, result.output
