"""Job rows: created, read, updated, and closed when their process stops."""

from __future__ import annotations

from runtime.store import Store

from .conftest import FakeClock


def test_create_get_update(timed_store: Store, clock: FakeClock) -> None:
    job = timed_store.create_job(
        id="job_1", app_id="kanban", operation="export", params={"board": "7"}, owner="proc-a"
    )
    assert job.status == "queued" and job.result is None
    assert timed_store.get_job("kanban", "job_1") == job
    assert timed_store.get_job("other", "job_1") is None
    clock.advance(5)
    done = timed_store.update_job("kanban", "job_1", status="done", result={"rows": [1, 2]})
    assert done is not None
    assert (done.status, done.result, done.params) == ("done", {"rows": [1, 2]}, {"board": "7"})
    assert done.updated_at > done.created_at
    assert timed_store.update_job("kanban", "nope", status="done") is None


def test_mark_interrupted_closes_only_that_owners_unfinished_jobs(store: Store) -> None:
    for id_, owner in (("j1", "proc-a"), ("j2", "proc-a"), ("j3", "proc-b"), ("j4", "proc-a")):
        store.create_job(id=id_, app_id="kanban", operation="export", params={}, owner=owner)
    store.update_job("kanban", "j2", status="running")
    store.update_job("kanban", "j4", status="done", result=1)
    assert store.mark_interrupted("proc-a") == 2
    statuses = {j: store.get_job("kanban", j) for j in ("j1", "j2", "j3", "j4")}
    assert {j: job.status for j, job in statuses.items() if job} == {
        "j1": "failed",
        "j2": "failed",
        "j3": "queued",
        "j4": "done",
    }
    assert statuses["j1"] is not None and statuses["j1"].reason == "interrupted"
    assert store.unfinished_job_owners("kanban") == ["proc-b"]
