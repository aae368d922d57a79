"""Long-running operations: answered at once with a job id, run here, polled at /api/_jobs.

A job belongs to the process that runs it. One whose process stopped reads
`failed` with reason `interrupted`, and is never re-run by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from runtime.mapping import Operation, Request
from runtime.protocol import ProtocolError
from runtime.store import Job, Store

log = logging.getLogger("a2app.runtime")
# The job's http request, sent: the executor a job runs in the background.
JobCall = Callable[[Operation, Request, dict[str, Any]], Awaitable[Any]]

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 20.0
DEFAULT_TIMEOUT_SECONDS = 600.0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class JobRunner:
    def __init__(
        self, store: Store, app_id: str, call: JobCall, changed: Callable[[], None] | None = None
    ) -> None:
        self.store, self.app_id, self.call = store, app_id, call
        self.changed = changed  # told when a job changed data, after it is recorded
        self.host = socket.gethostname()
        self.owner = f"{self.host}:{os.getpid()}:{int(time.time() * 1000)}"
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def sweep(self) -> int:
        """Close jobs whose process on this host is gone (a restart cut them off)."""
        closed = 0
        for owner in self.store.unfinished_job_owners(self.app_id):
            host, _, rest = owner.partition(":")
            pid = int(rest.split(":", 1)[0]) if rest.split(":", 1)[0].isdigit() else -1
            if owner != self.owner and host == self.host and not _pid_alive(pid):
                closed += self.store.mark_interrupted(owner)
        return closed

    def start(self, op: Operation, args: dict[str, Any]) -> str:
        job_id = "job_" + secrets.token_hex(8)
        app = self.app_id
        self.store.create_job(
            id=job_id, app_id=app, operation=op.name, params=args, owner=self.owner
        )
        self.tasks[job_id] = asyncio.create_task(self._run(job_id, op, args))
        return job_id

    async def _run(self, job_id: str, op: Operation, args: dict[str, Any]) -> None:
        assert op.job is not None
        store, app = self.store, self.app_id
        store.update_job(app, job_id, status="running")
        beat = asyncio.create_task(self._heartbeat(job_id))
        timeout = op.job.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        try:
            result = await asyncio.wait_for(self.call(op, op.job.request, args), timeout)
        except ProtocolError as exc:
            store.update_job(app, job_id, status="failed", reason=exc.code,
                             result={"code": exc.code, "message": exc.message})  # fmt: skip
        except TimeoutError:
            store.update_job(app, job_id, status="failed", reason="timeout")
        except asyncio.CancelledError:
            store.update_job(app, job_id, status="failed", reason="interrupted")
            raise
        except Exception:
            log.exception("job %s of %s failed", job_id, op.name)
            store.update_job(app, job_id, status="failed", reason="operation_failed")
        else:
            store.update_job(app, job_id, status="completed", result=result)
            if not op.read_only:
                store.bump_data_version(app)
                if self.changed is not None:
                    self.changed()
        finally:
            beat.cancel()
            self.tasks.pop(job_id, None)

    async def _heartbeat(self, job_id: str) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            self.store.update_job(self.app_id, job_id, status="running")

    def read(self, job_id: str) -> Job | None:
        app = self.app_id
        job = self.store.get_job(app, job_id)
        if job is None or job.status not in ("queued", "running") or job.owner == self.owner:
            return job
        stale = datetime.now(UTC) - _aware(job.updated_at) > timedelta(seconds=STALE_SECONDS)
        if stale:
            # Its process stopped beating: on another host a restart looks like this.
            self.store.mark_interrupted(job.owner)
            return self.store.get_job(app, job_id)
        return job

    async def aclose(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def job_doc(job: Job) -> dict[str, Any]:
    return {
        "a2app": True,
        "jobId": job.id,
        "operation": job.operation,
        "status": job.status,
        "result": job.result,
        "reason": job.reason,
        "createdAt": _aware(job.created_at).isoformat().replace("+00:00", "Z"),
        "updatedAt": _aware(job.updated_at).isoformat().replace("+00:00", "Z"),
        "pollAfterMs": 1000,
    }
