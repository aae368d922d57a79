"""Events and the task queue of the app→agent plane (protocol §14), shared by every process.

An occurrence (a dedup key) is stored once: its event and its task are inserted
in one transaction, and a repeat, from this process or another, finds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from sqlalchemy import insert, select, text, update
from sqlalchemy.engine import Connection

from ._base import StoreBase
from ._rows import Event, Task
from ._tables import events, tasks

# "A2EV": the advisory lock class that orders event inserts per app
_PG_EVENT_LOCK = 0x41324556
_event_lock = text("SELECT pg_advisory_xact_lock(:cls, hashtext(:app))")


class PlaneMixin(StoreBase):
    def raise_event(
        self,
        *,
        app_id: str,
        event_id: str,
        type: str,
        payload: Any,
        dedup_key: str | None,
        task: tuple[str, str] | None = None,
    ) -> tuple[Event, Task | None, bool]:
        """Append an event and, with `task` = (task id, capability), enqueue a task for it.

        A dedup key already stored returns the stored event and task, and False.
        """
        now = self._now()
        with self._write() as conn:
            if dedup_key is not None:
                known = _by_key(conn, app_id, dedup_key)
                if known is not None:
                    return known[0], known[1], False
            if conn.dialect.name == "postgresql":
                # Sequence values are handed out before commit; without the lock a
                # reader could page past a seq that commits a moment later.
                conn.execute(_event_lock, {"cls": _PG_EVENT_LOCK, "app": app_id})
            row = {"id": event_id, "app_id": app_id, "type": type, "payload": payload,
                   "dedup_key": dedup_key, "created_at": now}  # fmt: skip
            if not self._insert_if_absent(conn, insert(events).values(row)):
                # another process stored the same occurrence since we looked
                known = _by_key(conn, app_id, dedup_key or "")
                assert known is not None
                return known[0], known[1], False
            event = _event(conn, event_id)
            queued = None
            if task is not None:
                task_id, capability = task
                conn.execute(insert(tasks).values(
                    id=task_id, app_id=app_id, event_id=event_id, status="submitted",
                    capability=capability, payload=payload, dedup_key=dedup_key,
                    step=None, percent=0, deliveries=1, created_at=now, updated_at=now,
                ))  # fmt: skip
                queued = _task(conn, app_id, task_id)
            return event, queued, True

    def events_since(self, app_id: str, cursor: int = 0, limit: int = 500) -> list[Event]:
        """Events with a seq above `cursor`, oldest first."""
        query = (
            select(events)
            .where(events.c.app_id == app_id, events.c.seq > cursor)
            .order_by(events.c.seq)
            .limit(limit)
        )
        with self._read() as conn:
            return [Event(**row._mapping) for row in conn.execute(query)]

    def event_types(self, app_id: str, event_ids: Iterable[str]) -> dict[str, str]:
        """Event id -> its type, for the ids given that name an event of the app."""
        wanted = sorted(set(event_ids))
        if not wanted:
            return {}
        query = select(events.c.id, events.c.type).where(
            events.c.app_id == app_id, events.c.id.in_(wanted)
        )
        with self._read() as conn:
            return {row.id: row.type for row in conn.execute(query)}

    def get_task(self, app_id: str, task_id: str) -> Task | None:
        with self._read() as conn:
            return _task(conn, app_id, task_id)

    def list_tasks(self, app_id: str, status: str | None = None) -> list[Task]:
        query = select(tasks).where(tasks.c.app_id == app_id).order_by(tasks.c.seq)
        if status is not None:
            query = query.where(tasks.c.status == status)
        with self._read() as conn:
            return [Task(**row._mapping) for row in conn.execute(query)]

    def update_task(
        self,
        app_id: str,
        task_id: str,
        *,
        expect: tuple[str, ...],
        values: dict[str, Any],
        claim: tuple[str, str] | None = None,
    ) -> Task | None:
        """Set `values` if the task's status is one of `expect`, in one statement (the claim
        is the lock: of two racing callers one wins); None when it was not.

        `claim` = (credential id, principal) records who claimed it, and when.
        """
        now = self._now()
        if claim is not None:
            values = {**values, "claim_credential": claim[0], "claim_principal": claim[1],
                      "claimed_at": now}  # fmt: skip
        with self._write() as conn:
            done = conn.execute(
                update(tasks)
                .where(tasks.c.app_id == app_id, tasks.c.id == task_id)
                .where(tasks.c.status.in_(expect))
                .values(**values, updated_at=now)
            )
            return _task(conn, app_id, task_id) if done.rowcount == 1 else None

    def sweep_tasks(self, app_id: str, *, stale_seconds: float, max_deliveries: int) -> int:
        """Hand back `working` tasks idle for `stale_seconds`: to `submitted` with one more
        delivery, or `failed` (`redelivery_exhausted`) once delivered `max_deliveries`
        times. Returns how many moved."""
        now = self._now()
        stale = (
            (tasks.c.app_id == app_id)
            & (tasks.c.status == "working")
            & (tasks.c.updated_at < now - timedelta(seconds=stale_seconds))
        )
        with self._read() as conn:
            # most calls find nothing stale: a read keeps them off the write lock
            if conn.execute(select(tasks.c.seq).where(stale).limit(1)).first() is None:
                return 0
        with self._write() as conn:
            failed = conn.execute(
                update(tasks)
                .where(stale & (tasks.c.deliveries >= max_deliveries))
                .values(status="failed", reason="redelivery_exhausted", updated_at=now)
            ).rowcount
            back = conn.execute(
                update(tasks)
                .where(stale & (tasks.c.deliveries < max_deliveries))
                .values(
                    status="submitted", claim_credential=None, claim_principal=None,
                    claimed_at=None, step=None, percent=0, ask=None,
                    deliveries=tasks.c.deliveries + 1, updated_at=now,
                )
            ).rowcount  # fmt: skip
        return int(failed) + int(back)


def _event(conn: Connection, event_id: str) -> Event:
    row = conn.execute(select(events).where(events.c.id == event_id)).one()
    return Event(**row._mapping)


def _task(conn: Connection, app_id: str, task_id: str) -> Task | None:
    row = conn.execute(select(tasks).where(tasks.c.app_id == app_id, tasks.c.id == task_id)).first()
    return None if row is None else Task(**row._mapping)


def _by_key(conn: Connection, app_id: str, dedup_key: str) -> tuple[Event, Task | None] | None:
    row = conn.execute(
        select(events).where(events.c.app_id == app_id, events.c.dedup_key == dedup_key)
    ).first()
    if row is None:
        return None
    found = conn.execute(
        select(tasks).where(tasks.c.app_id == app_id, tasks.c.dedup_key == dedup_key)
    ).first()
    return Event(**row._mapping), None if found is None else Task(**found._mapping)
