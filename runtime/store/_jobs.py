"""Job rows: long-running operations, each owned by the runtime process that runs it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select, update

from ._base import StoreBase
from ._rows import Job
from ._tables import jobs

UNFINISHED = ("queued", "running")


class JobsMixin(StoreBase):
    def create_job(
        self,
        *,
        id: str,
        app_id: str,
        operation: str,
        params: Any,
        owner: str,
        status: str = "queued",
    ) -> Job:
        now = self._now()
        row = {
            "id": id,
            "app_id": app_id,
            "operation": operation,
            "status": status,
            "params": params,
            "result": None,
            "reason": None,
            "created_at": now,
            "updated_at": now,
            "owner": owner,
        }
        with self._write() as conn:
            conn.execute(insert(jobs).values(row))
        return Job(**row)

    def get_job(self, app_id: str, id: str) -> Job | None:
        with self._read() as conn:
            row = conn.execute(select(jobs).where(jobs.c.app_id == app_id, jobs.c.id == id)).first()
        return None if row is None else Job(**row._mapping)

    def update_job(
        self,
        app_id: str,
        id: str,
        *,
        status: str,
        result: Any = None,
        reason: str | None = None,
    ) -> Job | None:
        """Set a job's status, result and reason together; None when there is no such job."""
        values = {"status": status, "result": result, "reason": reason, "updated_at": self._now()}
        with self._write() as conn:
            conn.execute(
                update(jobs).where(jobs.c.app_id == app_id, jobs.c.id == id).values(values)
            )
        return self.get_job(app_id, id)

    def mark_interrupted(self, owner: str) -> int:
        """Close the unfinished jobs of a process that stopped; returns how many."""
        with self._write() as conn:
            done = conn.execute(
                update(jobs)
                .where(jobs.c.owner == owner, jobs.c.status.in_(UNFINISHED))
                .values(status="failed", reason="interrupted", updated_at=self._now())
            )
        return done.rowcount

    def unfinished_job_owners(self, app_id: str) -> list[str]:
        """The processes that own queued or running jobs of an app."""
        with self._read() as conn:
            rows = conn.execute(
                select(jobs.c.owner)
                .where(jobs.c.app_id == app_id, jobs.c.status.in_(UNFINISHED))
                .distinct()
            )
            return sorted(str(r[0]) for r in rows)
