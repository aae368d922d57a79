"""`a2map lint` checks operation schedules offline: a destructive operation is scheduled
only with the owner's approval in the mapping, and a scheduled call needs no arguments."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
ARCHIVE = "    request: {method: POST, path: /api/boards/board_main/archive/}\n"


def _scheduled(tmp_path: Path, schedule: str, after: str = ARCHIVE) -> str:
    assert after in BASE
    path = tmp_path / "scheduled.yaml"
    path.write_text(BASE.replace(after, after + f"    schedule: {schedule}\n", 1))
    return str(path)


def test_a_destructive_schedule_without_the_owners_approval_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lint", _scheduled(tmp_path, "{when: daily 03:00}")])
    assert result.exit_code == 1
    assert "operations[0].schedule: a destructive operation runs on a schedule only with " \
        "approvedBy: owner" in result.output  # fmt: skip


def test_a_destructive_schedule_the_owner_approved_passes(tmp_path: Path) -> None:
    schedule = "{when: daily 03:00, approvedBy: owner}"
    result = CliRunner().invoke(app, ["lint", _scheduled(tmp_path, schedule)])
    assert result.exit_code == 0, result.output


def test_a_schedule_on_an_operation_with_a_required_param_is_refused(tmp_path: Path) -> None:
    finish = '    request: {method: POST, path: "/api/cards/{card}/finish/", send: none}\n'
    result = CliRunner().invoke(app, ["lint", _scheduled(tmp_path, "{when: hourly}", finish)])
    assert result.exit_code == 1
    assert "cannot fill required param(s) card" in result.output


def test_an_unknown_time_zone_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "zoned.yaml"
    path.write_text(BASE.replace("serve:\n", "serve:\n  timeZone: Europe/Atlantis\n", 1))
    result = CliRunner().invoke(app, ["lint", str(path)])
    assert result.exit_code == 1
    assert "serve.timeZone: 'Europe/Atlantis' is not an IANA time zone name" in result.output
