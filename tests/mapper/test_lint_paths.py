"""`a2map lint` names every upstream path the runtime could not send as written, with
its code, so the owner learns of it before an agent's request fails."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mapper._exits import Exit
from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
EDITS = [
    ("    path: /api/lists/\n", "    path: //lists.example/api/lists/\n"),
    ("    path: /api/cards/\n", "    path: /api/cards/#all\n"),
    ("path: /api/cards/finished-count/,", 'path: "/api/{board}/finished-count/#n",'),
]


def test_every_unsendable_path_is_reported_with_its_code(tmp_path: Path) -> None:
    text = BASE
    for old, new in EDITS:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "paths.yaml"
    path.write_text(text)
    result = CliRunner().invoke(app, ["lint", str(path)])
    assert result.exit_code == Exit.INVALID, result.output
    for where, code, written in [
        ("entities.lists.path", "path-absolute", "//lists.example/api/lists/"),
        ("entities.cards.path", "path-fragment", "/api/cards/#all"),
        ("operations[1].request.path", "path-fragment", "/api/{board}/finished-count/#n"),
        ("operations[1].request.path", "path-placeholder", "{board}"),
    ]:
        assert f"{where}: {code}: " in result.output, (where, code)
        assert written in result.output
    assert f"{path}: invalid (4 problems)" in result.output


def test_a_mapping_whose_paths_send_as_written_passes(tmp_path: Path) -> None:
    path = tmp_path / "paths.yaml"
    path.write_text(BASE.replace("    path: /api/cards/\n", "    path: /api/cartes données/\n"))
    result = CliRunner().invoke(app, ["lint", str(path)])
    assert result.exit_code == Exit.VALID, result.output
