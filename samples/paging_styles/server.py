"""The paging-styles app (`app.py`) under uvicorn, with the samples' start contract."""

from __future__ import annotations

import sys
from pathlib import Path

from samples.stacks_common.launch import Launch
from samples.stacks_common.launch import main as launch_main

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.paging_styles",
        "35 records under /<style>/items, one paging style per prefix (no auth, token null).",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    # The records are fixed: the seed and the data directory change nothing.
    command = [sys.executable, "-m", "uvicorn", "samples.paging_styles.app:app",
               "--host", "127.0.0.1", "--port", str(port), "--no-access-log"]  # fmt: skip
    return Launch(command, cwd=ROOT, ready_path="/health", env={"PYTHONPATH": str(ROOT)})
