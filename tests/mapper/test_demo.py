"""`a2map demo --check`: the README's demo command, end to end, on real servers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_demo_tour_runs_against_real_servers(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mapper",
            "demo",
            "--check",
            "--port",
            "0",
            "--state",
            str(tmp_path / "st"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "demo check: ok" in result.stdout
    assert '"schemaVersion":"sv_' in result.stdout
    assert (tmp_path / "st" / ".agent-token").stat().st_mode & 0o777 == 0o600
