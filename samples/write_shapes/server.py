"""The write-shapes app (`app.py`) under uvicorn, with the samples' start contract."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

from samples.stacks_common.launch import Launch
from samples.stacks_common.launch import main as launch_main

from .app import TOKEN_VARIABLE

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.write_shapes",
        "Four collections whose writes answer differently, behind a Bearer token.",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    # The records are fixed: the seed and the data directory change nothing.
    token = f"ws_{secrets.token_hex(16)}"
    command = [sys.executable, "-m", "uvicorn", "samples.write_shapes.app:app",
               "--host", "127.0.0.1", "--port", str(port), "--no-access-log"]  # fmt: skip
    env = {"PYTHONPATH": str(ROOT), TOKEN_VARIABLE: token}
    return Launch(command, cwd=ROOT, ready_path="/health", env=env, token=token)
