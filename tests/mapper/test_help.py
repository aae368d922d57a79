"""Every `a2map` command's --help: flags read as flags, never as options taking a value."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from mapper.cli import app

runner = CliRunner()


# typer carries its own copy of click: its classes are known here by what they have
def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    if hasattr(command, "commands"):
        for name, sub in sorted(command.commands.items()):
            found += _commands(sub, (*path, name))
    return found


def _flags(path: tuple[str, ...]) -> list[str]:
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return [
        opt
        for param in command.params
        if param.param_type_name == "option" and getattr(param, "is_flag", False)
        for opt in param.opts
    ]


COMMANDS = _commands(typer.main.get_command(app))


def test_every_command_is_covered() -> None:
    assert {("approvals", "approve"), ("token", "create"), ("demo",), ()} <= set(COMMANDS)


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "a2map")
def test_flags_show_as_flags(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    lines = result.output.splitlines()
    for flag in [*_flags(path), "--help"]:
        [line] = [line for line in lines if line.strip().startswith(flag + " ")]
        assert line.split(flag, 1)[1].startswith("  "), line


def test_the_command_loads_only_what_a_command_uses() -> None:
    """`a2map --help` (and so every command's start) loads no store, no database
    driver and no mapping model: each command imports what it uses when it runs."""
    probe = (
        "import sys, mapper.cli; "
        "print(' '.join(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('sqlalchemy', 'alembic', 'httpx', 'jsonschema', 'yaml') "
        "or m.startswith(('runtime.store', 'runtime.mapping', 'runtime.upstream')))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == []
