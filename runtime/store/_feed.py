"""The change feed's state: the snapshot of record hashes, the changes, and the lease.

The lease is a row per (app, entity): a process holds it until `lease_until`, and
an UPDATE guarded by "mine or expired" is the whole claim, so of two processes
racing for it exactly one succeeds, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Text, cast, delete, func, insert, literal, or_, select, update
from sqlalchemy.engine import Connection

from ._base import StoreBase
from ._rows import FeedAction, FeedChange, FeedState
from ._tables import events, feed_changes, feed_records, feed_state


@dataclass(frozen=True, slots=True)
class Seen:
    """A change to record: for a delete `hash` and `record` are None."""

    action: FeedAction
    record_id: str
    hash: str | None
    record: Any = None


class FeedMixin(StoreBase):
    def feed_snapshot(self, app_id: str, entity: str) -> dict[str, str]:
        """Record id -> hash, as the feed last saw the entity."""
        query = select(feed_records.c.record_id, feed_records.c.hash).where(
            feed_records.c.app_id == app_id, feed_records.c.entity == entity
        )
        with self._read() as conn:
            return {row.record_id: row.hash for row in conn.execute(query)}

    def feed_baseline(self, app_id: str, entity: str, hashes: Mapping[str, str]) -> None:
        """Replace the snapshot with `hashes` and mark the baseline taken: no change is
        recorded for what the first walk found."""
        now = self._now()
        with self._write() as conn:
            conn.execute(
                delete(feed_records).where(
                    feed_records.c.app_id == app_id, feed_records.c.entity == entity
                )
            )
            rows = [{"app_id": app_id, "entity": entity, "record_id": i, "hash": h}
                    for i, h in hashes.items()]  # fmt: skip
            if rows:
                conn.execute(insert(feed_records), rows)
            _ensure_state(conn, app_id, entity, now)
            conn.execute(
                update(feed_state)
                .where(feed_state.c.app_id == app_id, feed_state.c.entity == entity)
                .values(baseline_at=now, updated_at=now)
            )

    def feed_record(self, app_id: str, entity: str, seen: Iterable[Seen]) -> list[FeedChange]:
        """Append the changes and bring the snapshot in line with them, in one transaction;
        a change the snapshot already holds (the same hash, or a delete of an absent id) is
        skipped, so it is recorded once."""
        now = self._now()
        done: list[FeedChange] = []
        key = (feed_records.c.app_id == app_id) & (feed_records.c.entity == entity)
        with self._write() as conn:
            for change in seen:
                here = key & (feed_records.c.record_id == change.record_id)
                current = conn.execute(select(feed_records.c.hash).where(here)).scalar()
                if current == change.hash:
                    # already recorded: a write through the runtime, or another poller,
                    # got there between this poll's read of the snapshot and now
                    continue
                conn.execute(delete(feed_records).where(here))
                if change.hash is not None:
                    conn.execute(insert(feed_records).values(
                        app_id=app_id, entity=entity, record_id=change.record_id, hash=change.hash
                    ))  # fmt: skip
                result = conn.execute(
                    insert(feed_changes).values(
                        app_id=app_id,
                        entity=entity,
                        action=change.action,
                        record_id=change.record_id,
                        record=change.record,
                        at=now,
                    )
                )
                key_row = result.inserted_primary_key
                assert key_row is not None
                seq = int(key_row[0])
                done.append(FeedChange(seq, app_id, entity, change.action, change.record_id,
                                       change.record, now))  # fmt: skip
        return done

    def feed_changes_since(
        self, app_id: str, cursor: int = 0, limit: int = 500
    ) -> list[FeedChange]:
        query = (
            select(feed_changes)
            .where(feed_changes.c.app_id == app_id, feed_changes.c.seq > cursor)
            .order_by(feed_changes.c.seq)
            .limit(limit)
        )
        with self._read() as conn:
            return [FeedChange(**row._mapping) for row in conn.execute(query)]

    def feed_head(self, app_id: str) -> int:
        """The newest change's seq (0 before any): where a reader of new changes only starts."""
        query = select(func.max(feed_changes.c.seq)).where(feed_changes.c.app_id == app_id)
        with self._read() as conn:
            return int(conn.execute(query).scalar() or 0)

    def feed_last_record(self, app_id: str, entity: str, record_id: str, before: int) -> Any:
        """The record as the feed last recorded it before change `before`, or None: what a
        delete took away, when the feed saw the record created or changed."""
        query = (
            select(feed_changes.c.record)
            .where(
                feed_changes.c.app_id == app_id,
                feed_changes.c.entity == entity,
                feed_changes.c.record_id == record_id,
                feed_changes.c.seq < before,
                feed_changes.c.action != "delete",
            )
            .order_by(feed_changes.c.seq.desc())
            .limit(1)
        )
        with self._read() as conn:
            return conn.execute(query).scalar()

    def feed_unraised(self, app_id: str, key_prefix: str, limit: int = 500) -> list[FeedChange]:
        """Changes whose event (dedup key `key_prefix` + seq) is not stored: a process that
        stopped between recording a change and raising its event left them."""
        key = literal(key_prefix) + cast(feed_changes.c.seq, Text)
        raised = select(events.c.seq).where(events.c.app_id == app_id, events.c.dedup_key == key)
        query = (
            select(feed_changes)
            .where(feed_changes.c.app_id == app_id, ~raised.exists())
            .order_by(feed_changes.c.seq)
            .limit(limit)
        )
        with self._read() as conn:
            return [FeedChange(**row._mapping) for row in conn.execute(query)]

    def feed_lease(self, app_id: str, entity: str, holder: str, seconds: float) -> bool:
        """Take or renew the entity's lease for `seconds`; False while another holds it."""
        now = self._now()
        with self._write() as conn:
            _ensure_state(conn, app_id, entity, now)
            taken = conn.execute(
                update(feed_state)
                .where(feed_state.c.app_id == app_id, feed_state.c.entity == entity)
                .where(
                    or_(
                        feed_state.c.holder.is_(None),
                        feed_state.c.holder == holder,
                        feed_state.c.lease_until < now,
                    )
                )
                .values(holder=holder, lease_until=now + timedelta(seconds=seconds), updated_at=now)
            )
            return taken.rowcount == 1

    def feed_release(self, app_id: str, entity: str, holder: str) -> None:
        with self._write() as conn:
            conn.execute(
                update(feed_state)
                .where(feed_state.c.app_id == app_id, feed_state.c.entity == entity)
                .where(feed_state.c.holder == holder)
                .values(holder=None, lease_until=None)
            )

    def feed_note(self, app_id: str, entity: str, note: str | None) -> None:
        now = self._now()
        with self._write() as conn:
            _ensure_state(conn, app_id, entity, now)
            conn.execute(
                update(feed_state)
                .where(feed_state.c.app_id == app_id, feed_state.c.entity == entity)
                .values(note=note, updated_at=now)
            )

    def feed_state(self, app_id: str, entity: str) -> FeedState | None:
        query = select(feed_state).where(
            feed_state.c.app_id == app_id, feed_state.c.entity == entity
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        return None if row is None else FeedState(**row._mapping)


def _ensure_state(conn: Connection, app_id: str, entity: str, now: datetime) -> None:
    found = conn.execute(
        select(feed_state.c.app_id).where(
            feed_state.c.app_id == app_id, feed_state.c.entity == entity
        )
    ).first()
    if found is None:
        StoreBase._insert_if_absent(
            conn, insert(feed_state).values(app_id=app_id, entity=entity, updated_at=now)
        )
