"""A job that changed data tells the runtime once it is recorded, so triggers look again;
a read-only or failed one does not."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from runtime.mapping import Operation, Request, load_mapping_text
from runtime.protocol import ProtocolError
from runtime.service import JobRunner
from runtime.store import Store

ROOT = Path(__file__).resolve().parents[3]
BASE = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
ENV = {"KANBAN_URL": "http://127.0.0.1:9", "KANBAN_TOKEN": "unused"}
JOBS = """
  - name: export
    module: board
    destructive: false
    params: {}
    job: {request: {method: POST, path: /export/, send: none}}
  - name: report
    module: board
    destructive: false
    readOnly: true
    params: {}
    job: {request: {method: GET, path: /report/, send: none}}
"""


def _op(name: str) -> Operation:
    text = BASE.replace("\nserve:", JOBS.rstrip("\n") + "\nserve:", 1)
    op = load_mapping_text(text, env=ENV).operation(name)
    assert op is not None and op.job is not None
    return op


@pytest.mark.parametrize(
    ("name", "fails", "told"), [("export", False, 1), ("report", False, 0), ("export", True, 0)]
)
def test_changed_is_told_after_a_data_changing_job(
    tmp_path: Path, name: str, fails: bool, told: int
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    calls: list[str] = []

    async def call(op: Operation, request: Request, args: dict[str, Any]) -> Any:
        if fails:
            raise ProtocolError("upstream_error")
        return {"rows": 1}

    async def scenario() -> str:
        runner = JobRunner(store, "conformance_kanban", call, lambda: calls.append("changed"))
        job_id = runner.start(_op(name), {})
        await asyncio.gather(*runner.tasks.values())
        return job_id

    try:
        job = store.get_job("conformance_kanban", asyncio.run(scenario()))
        assert job is not None and job.status == ("failed" if fails else "completed")
        assert calls == ["changed"] * told
    finally:
        store.close()
