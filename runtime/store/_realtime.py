"""Realtime subscriptions shared across processes: who holds each client's stream, and the
set of topics its last POST wrote.

Any process may take a client's POST; the process holding the stream reads the sets
written for its clients since the last it applied (one indexed query per fan-out tick,
whatever the number of clients) and applies them. A holder's heartbeat keeps its row (and
so its clients) alive; a process that dies leaves rows that any other process sweeps once
they are older than the expiry.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from ._base import StoreBase
from ._errors import RealtimeCallerError
from ._rows import RealtimeSet
from ._tables import realtime_clients, realtime_holders

_SETS = select(
    realtime_clients.c.client_id,
    realtime_clients.c.rev,
    realtime_clients.c.topics,
    realtime_clients.c.caller_kind,
    realtime_clients.c.credential_id,
)


class RealtimeMixin(StoreBase):
    def realtime_hold(self, holder: str, app_id: str) -> None:
        """Register a process's fan-out as a holder of streams."""
        with self._write() as conn:
            conn.execute(
                insert(realtime_holders).values(
                    id=holder, app_id=app_id, rev=0, seen_at=self._now()
                )
            )

    def realtime_beat(self, holder: str, expiry: timedelta) -> bool:
        """The holder's heartbeat; sweeps holders not seen for `expiry`, and their clients.
        False when this holder was swept itself (it stalled): its clients' rows are gone."""
        now = self._now()
        with self._write() as conn:
            alive = conn.execute(
                update(realtime_holders).where(realtime_holders.c.id == holder).values(seen_at=now)
            ).rowcount
            conn.execute(delete(realtime_holders).where(realtime_holders.c.seen_at < now - expiry))
            # also the rows a holder opened after it was swept
            conn.execute(
                delete(realtime_clients).where(
                    realtime_clients.c.holder.not_in(select(realtime_holders.c.id))
                )
            )
        return alive == 1

    def realtime_release(self, holder: str) -> None:
        """A holder that stops: its row and its clients' rows go."""
        with self._write() as conn:
            conn.execute(delete(realtime_clients).where(realtime_clients.c.holder == holder))
            conn.execute(delete(realtime_holders).where(realtime_holders.c.id == holder))

    def realtime_open(self, holder: str, app_id: str, client_id: str) -> None:
        """A stream opened: its client is known to every process, with no topics yet."""
        with self._write() as conn:
            conn.execute(
                insert(realtime_clients).values(
                    app_id=app_id, client_id=client_id, holder=holder, rev=0, topics=[]
                )
            )

    def realtime_close(self, app_id: str, client_ids: Iterable[str]) -> None:
        ids = list(client_ids)
        if not ids:
            return
        with self._write() as conn:
            conn.execute(
                delete(realtime_clients).where(
                    realtime_clients.c.app_id == app_id, realtime_clients.c.client_id.in_(ids)
                )
            )

    def realtime_holder_of(self, app_id: str, client_id: str, expiry: timedelta) -> str | None:
        """The holder of a live stream for the client, or None: no process holds one, or
        the one that did was not seen for `expiry`."""
        with self._read() as conn:
            return _live_holder(conn, app_id, client_id, self._now() - expiry)

    def realtime_may_replace(
        self,
        app_id: str,
        client_id: str,
        *,
        caller_kind: str,
        credential_id: str,
        upgrades: Collection[str] = (),
    ) -> bool:
        """Whether this caller may replace the client's set, by the rule
        `realtime_subscribe` enforces, read from the set as it stands now. A POST asks it
        before checking its topics, so a caller under another credential is told that
        first. Only a forecast: the set may change before the write, whose own condition
        decides. True for a client the store does not know: the write answers that."""
        query = select(_may_replace(caller_kind, credential_id, upgrades).label("may")).where(
            _client(app_id, client_id)
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        # a NULL verdict is a refusal, as it is for the update's WHERE
        return row is None or bool(row.may)

    def realtime_subscribe(
        self,
        app_id: str,
        client_id: str,
        topics: Sequence[str],
        *,
        caller_kind: str,
        credential_id: str,
        upgrades: Collection[str] = (),
        expiry: timedelta,
    ) -> int | None:
        """Replace the client's set, in one transaction; its revision, or None when no live
        stream holds the client. The holder's `rev` is raised under its row lock, so the
        sets of its clients are numbered in the order they commit.

        Only the caller that wrote the client's current set may replace it, or any caller
        when there is none yet; `upgrades` names the caller kinds whose sets this caller
        may also take over (a guest's, for a credentialled caller). Any other caller is
        refused with `RealtimeCallerError` and nothing is written. The rule is the
        update's own condition, evaluated on the row as it stands when the update takes
        it, so of two concurrent POSTs under different credentials only one replaces
        the set, whichever processes take them."""
        now = self._now()
        client = _client(app_id, client_id)
        with self._write() as conn:
            holder = _live_holder(conn, app_id, client_id, now - expiry)
            if holder is None:
                return None
            here = realtime_holders.c.id == holder
            conn.execute(
                update(realtime_holders).where(here).values(rev=realtime_holders.c.rev + 1)
            )
            rev = int(conn.execute(select(realtime_holders.c.rev).where(here)).scalar_one())
            written = conn.execute(
                update(realtime_clients)
                .where(client, _may_replace(caller_kind, credential_id, upgrades))
                .values(
                    rev=rev,
                    topics=list(topics),
                    caller_kind=caller_kind,
                    credential_id=credential_id,
                    subscribed_at=now,
                )
            ).rowcount
            if written == 0:
                if conn.execute(select(realtime_clients.c.rev).where(client)).first() is None:
                    return None  # the stream ended meanwhile
                # leaving the block by raising rolls the holder's `rev` back too
                raise RealtimeCallerError(
                    "The client's subscription was made under another credential."
                )
        return rev

    def realtime_sets(self, holder: str, since: int) -> list[RealtimeSet]:
        """The sets written for the holder's clients after revision `since`, oldest first."""
        query = _SETS.where(
            realtime_clients.c.holder == holder, realtime_clients.c.rev > since
        ).order_by(realtime_clients.c.rev)
        with self._read() as conn:
            return [
                RealtimeSet(
                    row.client_id,
                    int(row.rev),
                    tuple(row.topics),
                    row.caller_kind,
                    row.credential_id,
                )
                for row in conn.execute(query)
            ]


def _client(app_id: str, client_id: str) -> ColumnElement[bool]:
    return and_(realtime_clients.c.app_id == app_id, realtime_clients.c.client_id == client_id)


def _may_replace(
    caller_kind: str, credential_id: str, upgrades: Collection[str]
) -> ColumnElement[bool]:
    """The client row's condition for this caller to replace its set: the one statement
    of the rule, the update's condition and the forecast's verdict alike."""
    row = realtime_clients.c
    allowed = [
        row.caller_kind.is_(None),  # no set yet: the first POST, under any credential
        and_(row.caller_kind == caller_kind, row.credential_id == credential_id),
    ]
    if upgrades:
        allowed.append(row.caller_kind.in_(list(upgrades)))
    return or_(*allowed)


def _live_holder(conn: Connection, app_id: str, client_id: str, cutoff: datetime) -> str | None:
    query = (
        select(realtime_clients.c.holder)
        .join(realtime_holders, realtime_holders.c.id == realtime_clients.c.holder)
        .where(_client(app_id, client_id), realtime_holders.c.seen_at >= cutoff)
    )
    found = conn.execute(query).scalar()
    return None if found is None else str(found)
