"""One exit-code table for every `a2map` command, and the README shows that table."""

from __future__ import annotations

import re
from pathlib import Path

from mapper import _exits
from mapper._exits import Exit
from mapper.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _table(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def test_the_readme_shows_the_table_of_the_code() -> None:
    assert _exits.__doc__ is not None
    table = _table(_exits.__doc__)
    assert table and "\n".join(table) in README.read_text(encoding="utf-8")


def test_every_command_has_a_row() -> None:
    assert _exits.__doc__ is not None
    rows = " ".join(line.split("|")[1] for line in _table(_exits.__doc__)[2:])
    named = set(re.findall(r"`([a-z-]+)`", rows))
    commands = {
        c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands
    }
    groups = {g.name for g in app.registered_groups}
    assert commands | groups == named


def test_three_codes_named_per_command() -> None:
    assert sorted({int(code) for code in Exit}) == [0, 1, 2]
    assert Exit.VERIFIED is Exit.OK and Exit.REFUSED is Exit.FAILED and Exit.NOTHING is Exit.FAILED
