"""`a2map lint` checks `serve.feed` and says what it will cost."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mapper.cli import app

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()


def _with_feed(tmp_path: Path, feed: str) -> str:
    path = tmp_path / "fed.yaml"
    path.write_text(BASE.rstrip("\n") + f"\n  feed: {feed}\n")
    return str(path)


def test_a_budget_too_small_for_one_walk_is_refused_with_what_it_needs(tmp_path: Path) -> None:
    feed = "{entities: [cards, lists], interval: 30, budget: 3}"
    result = CliRunner().invoke(app, ["lint", _with_feed(tmp_path, feed)])
    assert result.exit_code == 1
    assert "serve.feed.budget" in result.output and "at least 4 are needed" in result.output


def test_an_undeclared_entity_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lint", _with_feed(tmp_path, "{entities: [card]}")])
    assert result.exit_code == 1
    assert "serve.feed.entities[0]" in result.output and "did you mean 'cards'" in result.output


def test_a_sound_feed_passes_and_its_cost_is_said(tmp_path: Path) -> None:
    feed = "{entities: [cards, lists], interval: 30, budget: 10}"
    result = CliRunner().invoke(app, ["lint", _with_feed(tmp_path, feed)])
    assert result.exit_code == 0, result.output
    assert "feed of cards, lists every 30 s, at most 10 upstream requests per minute" in (
        result.output
    )
    assert "needs 4)" in result.output


def test_what_verify_must_prove_for_a_newest_first_walk_is_said(tmp_path: Path) -> None:
    feed = "{entities: [cards, lists], interval: 30, budget: 10}"
    result = CliRunner().invoke(app, ["lint", _with_feed(tmp_path, feed)])
    assert result.exit_code == 0, result.output
    assert (
        "feed of cards: newest first only once `a2map verify` proves, by updating a record of "
        "its own, that one of created moves forward on every update" in result.output
    )
    assert "feed of lists: complete walks (no datetime field it sorts by)" in result.output
    assert "only where `a2map verify` proved the ETag follows every change" in result.output
