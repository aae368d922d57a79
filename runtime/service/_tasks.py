"""The task queue an app hands agents (protocol §14.2): list, read, claim, progress, complete,
cancel, with the sweep of stale claims run first on every tasks request.

The claim is the lock: each change is one compare-and-set on the task's status in the
store, so of two agents claiming at once, across processes, one wins and one is told
`task_not_claimable`.

A task raised with an event that carries an entity's records (a trigger's, a feed's)
concerns that entity: as its event is, it is shown only to a caller that may read the
entity (`data:<entity>:read`), since its payload holds those records' values. The
listing leaves it out; reading or acting on it by id is `insufficient_scope`. This goes
beyond the protocol's §14.2 (tasks need no scope), as the events feed does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from runtime.protocol import Caller, ProtocolError, parse_body
from runtime.store import Task

from ._clock import wire_time
from ._event_types import carried_entities
from ._state import RuntimeState

POLL_AFTER_MS = 2000
# A `working` task not heard from this long goes back to the queue (or fails at the cap).
STALE_SECONDS = 60.0
MAX_DELIVERIES = 5
STATUSES = ("submitted", "working", "input-required", "completed", "failed", "canceled")
IN_PROGRESS = ("working", "input-required")
FINISHED = ("completed", "failed", "canceled")
ACTIONS = ("claim", "progress", "complete", "cancel")


def _number(value: float | None) -> float | int | None:
    """A percent as JSON writes it: 40, not 40.0."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def task_doc(task: Task) -> dict[str, Any]:
    request: dict[str, Any] = {"capability": task.capability}
    if task.payload is not None:
        request["payload"] = task.payload
    claim = None
    if task.claim_credential is not None:
        claim = {
            "credentialId": task.claim_credential,
            "principal": task.claim_principal,
            "claimedAt": wire_time(task.claimed_at) if task.claimed_at else None,
        }
    return {
        "id": task.id,
        "app": task.app_id,
        "event": task.event_id,
        "status": task.status,
        "request": request,
        "claim": claim,
        "progress": {"step": task.step, "percent": _number(task.percent)},
        "result": task.result,
        "reason": task.reason,
        "createdAt": wire_time(task.created_at),
        "updatedAt": wire_time(task.updated_at),
        "pollAfterMs": POLL_AFTER_MS,
    }


Precheck = Callable[[], None]


def _caller(
    state: RuntimeState, headers: dict[str, str], precheck: Precheck, *, write: bool
) -> Caller:
    """Reads are anonymous-OK on single-user apps; every change needs a credential.
    The sweep runs after, so a refused caller changes nothing."""
    caller = state.security.authorize(headers, None, write=write)
    precheck()
    state.store.sweep_tasks(
        state.mapping.app.id, stale_seconds=STALE_SECONDS, max_deliveries=MAX_DELIVERIES
    )
    return caller


def _found(state: RuntimeState, task_id: str) -> Task:
    task = state.store.get_task(state.mapping.app.id, task_id)
    if task is None:
        raise ProtocolError("task_not_found", f"No task {task_id!r}.")
    return task


def _concerned(state: RuntimeState, rows: list[Task]) -> dict[str, frozenset[str]]:
    """Task id -> the entities whose records its event carries (none: a hook's, say)."""
    types = state.store.event_types(state.mapping.app.id, (t.event_id for t in rows if t.event_id))
    carried = carried_entities(state.mapping)
    return {
        t.id: carried.get(types.get(t.event_id, ""), frozenset()) if t.event_id else frozenset()
        for t in rows
    }


def _readable(state: RuntimeState, caller: Caller, task: Task) -> Task:
    """The task, if the caller may read every entity it concerns; else `insufficient_scope`."""
    for entity in sorted(_concerned(state, [task])[task.id]):
        if not caller.can_read(entity):
            scope = f"data:{entity}:read"
            raise ProtocolError(
                "insufficient_scope", f"Task {task.id} concerns {entity}: reading it needs "
                f"{scope}.", required=scope,
            )  # fmt: skip
    return task


def list_tasks(
    state: RuntimeState, headers: dict[str, str], status: str | None, *, precheck: Precheck
) -> dict[str, Any]:
    caller = _caller(state, headers, precheck, write=False)
    if status is not None and status not in STATUSES:
        raise ProtocolError(
            "usage", f"status is one of {', '.join(STATUSES)}; got {status!r}.", got=status
        )
    rows = state.store.list_tasks(state.mapping.app.id, status or None)
    concerned = _concerned(state, rows)
    shown = [t for t in rows if all(map(caller.can_read, concerned[t.id]))]
    return {"a2app": True, "tasks": [task_doc(t) for t in shown], "pollAfterMs": POLL_AFTER_MS}


def no_task_id(state: RuntimeState, headers: dict[str, str], *, precheck: Precheck) -> NoReturn:
    """`/api/_a2app/tasks` with a verb other than GET: a change needs a task id."""
    _caller(state, headers, precheck, write=True)
    raise ProtocolError("usage", "Name the task: POST /api/_a2app/tasks/{id}/<action>.")


def get_task(
    state: RuntimeState, headers: dict[str, str], task_id: str, method: str, *, precheck: Precheck
) -> dict[str, Any]:
    """`/api/_a2app/tasks/{id}`: the task on GET; the id is checked before the verb."""
    reading = method in ("GET", "HEAD")
    caller = _caller(state, headers, precheck, write=not reading)
    task = _readable(state, caller, _found(state, task_id))
    if method == "POST":
        raise ProtocolError(
            "usage", f"Name an action: POST .../{task_id}/<{'|'.join(ACTIONS)}>.", status=404
        )
    if not reading:
        raise ProtocolError("usage", "A task is read with GET.", status=405)
    return task_doc(task)


def act_on_task(
    state: RuntimeState,
    headers: dict[str, str],
    task_id: str,
    action: str,
    method: str,
    body: bytes,
    *,
    precheck: Precheck,
) -> dict[str, Any]:
    """`POST /api/_a2app/tasks/{id}/{action}`: the id first, then the action, then the verb."""
    caller = _caller(state, headers, precheck, write=method not in ("GET", "HEAD"))
    task = _readable(state, caller, _found(state, task_id))
    if action not in ACTIONS:
        raise ProtocolError(
            "usage", f"No task action {action!r}; actions: {', '.join(ACTIONS)}.", status=404
        )
    if method != "POST":
        raise ProtocolError("usage", "Task actions are POST-only.", status=405)
    doc = parse_body(body) or {}
    if action == "claim":
        return task_doc(_claim(state, caller, task, doc))
    if action == "progress":
        return task_doc(_progress(state, task, doc))
    if action == "complete":
        return task_doc(_complete(state, task, doc))
    return task_doc(_cancel(state, task))


def _changed(
    state: RuntimeState,
    task: Task,
    expect: tuple[str, ...],
    claim: tuple[str, str] | None = None,
    **values: Any,
) -> Task:
    store = state.store
    changed = store.update_task(task.app_id, task.id, expect=expect, values=values, claim=claim)
    if changed is None:
        # Another caller changed it between our read and our write: told as it now stands.
        now = _found(state, task.id)
        if now.status == "canceled":
            raise ProtocolError("task_canceled", f"Task {task.id} was canceled.")
        raise ProtocolError("task_not_claimable", f"Task {task.id} is {now.status} now.")
    return changed


def _claim(state: RuntimeState, caller: Caller, task: Task, doc: dict[str, Any]) -> Task:
    agent = doc.get("agent")
    if agent is not None and not isinstance(agent, str):
        raise ProtocolError("usage", "agent is the claiming credential's id or agent name.")
    if task.status != "submitted":
        raise ProtocolError(
            "task_not_claimable", f"Task {task.id} is {task.status}; only a submitted task is "
            "claimed.",
        )  # fmt: skip
    if agent and agent not in (caller.credential_id, caller.agent_name):
        raise ProtocolError(
            "principal_mismatch",
            f"The claim names {agent!r}, but the caller is {caller.credential_id!r}.",
            requested=agent,
            actual=caller.credential_id,
        )
    claim = (caller.credential_id, caller.principal)
    return _changed(state, task, ("submitted",), claim, status="working")


def _in_progress(task: Task, doing: str) -> None:
    if task.status == "canceled":
        raise ProtocolError("task_canceled", f"Task {task.id} was canceled; stop {doing}.")
    if task.status not in IN_PROGRESS:
        raise ProtocolError(
            "task_not_claimable",
            f"Task {task.id} is {task.status}; claim it first (only a claimed task is {doing}).",
        )


def _progress(state: RuntimeState, task: Task, doc: dict[str, Any]) -> Task:
    _in_progress(task, "reported on")
    step, percent = doc.get("step", task.step), doc.get("percent", task.percent)
    if step is not None and not isinstance(step, str):
        raise ProtocolError("usage", "step is a short text saying what the agent is doing.")
    if percent is not None and (
        isinstance(percent, bool) or not isinstance(percent, int | float) or not 0 <= percent <= 100
    ):
        raise ProtocolError("usage", "percent is a number from 0 to 100.", got=percent)
    # A call with `step` alone is a heartbeat: it counts as activity for the sweep
    # (updated_at moves) and keeps the last percent.
    values: dict[str, Any] = {"step": step, "percent": percent}
    if "ask" in doc:
        values.update(status="input-required", ask=doc["ask"])
    else:
        values.update(status="working")
    return _changed(state, task, IN_PROGRESS, **values)


def _complete(state: RuntimeState, task: Task, doc: dict[str, Any]) -> Task:
    _in_progress(task, "completed")
    status = doc.get("status")
    if status == "completed":
        result = doc.get("result")
        if result is not None and not isinstance(result, dict):
            raise ProtocolError("usage", "result is a JSON object.")
        return _changed(state, task, IN_PROGRESS, status="completed", result=result)
    if status == "failed":
        reason = doc.get("reason") or "unspecified"
        if not isinstance(reason, str):
            raise ProtocolError("usage", "reason is a short code or text.")
        return _changed(state, task, IN_PROGRESS, status="failed", reason=reason)
    raise ProtocolError(
        "usage", 'status is "completed" (with result) or "failed" (with reason).', got=status
    )


def _cancel(state: RuntimeState, task: Task) -> Task:
    if task.status in FINISHED:
        raise ProtocolError("task_not_claimable", f"Task {task.id} is {task.status} already.")
    return _changed(state, task, ("submitted", *IN_PROGRESS), status="canceled")
