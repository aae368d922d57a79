"""`GET /api/_jobs/{jobId}`: a job's status and result, for holders of its operation's scope."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.protocol import ProtocolError

from ._jobs import job_doc
from ._state import RuntimeState


def poll_job(
    state: RuntimeState, headers: dict[str, str], job_id: str, *, precheck: Callable[[], None]
) -> dict[str, Any]:
    job = state.jobs.read(job_id)
    op = state.mapping.operation(job.operation) if job is not None else None
    if job is None or op is None:
        raise ProtocolError("job_not_found", f"No job {job_id!r}.")
    state.security.authorize(headers, f"op:{op.name}", write=not op.read_only)
    precheck()
    return job_doc(job)
