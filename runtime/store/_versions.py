"""`dataVersion` (protocol §5): `<epoch>.<counter>`, shared by every process serving an app."""

from __future__ import annotations

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from ._base import StoreBase
from ._tables import data_versions

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
# Built once: every counted write runs it (RETURNING: SQLite 3.35+, PostgreSQL).
_INCREMENT = (
    update(data_versions)
    .where(data_versions.c.app_id == bindparam("app"))
    .values(counter=data_versions.c.counter + 1)
    .returning(data_versions.c.epoch, data_versions.c.counter)
)


def base36(n: int) -> str:
    """`n` written in base 36, as JavaScript's `n.toString(36)` writes it."""
    if n == 0:
        return "0"
    out = []
    while n:
        n, digit = divmod(n, 36)
        out.append(_DIGITS[digit])
    return "".join(reversed(out))


class VersionsMixin(StoreBase):
    def start_data_version(self, app_id: str) -> str:
        """Open the app's epoch if none exists; a later start keeps it, so numbers never go back."""
        with self._write() as conn:
            self._start(conn, app_id)
            return self._current(conn, app_id)

    def data_version(self, app_id: str) -> str:
        with self._read() as conn:
            row = conn.execute(
                select(data_versions.c.epoch, data_versions.c.counter).where(
                    data_versions.c.app_id == app_id
                )
            ).first()
        if row is None:
            return self.start_data_version(app_id)
        return f"{row.epoch}.{row.counter}"

    def bump_data_version(self, app_id: str) -> str:
        """Count one successful data change; atomic across processes."""
        with self._write() as conn:
            return self._bump(conn, app_id)

    def _bump(self, conn: Connection, app_id: str) -> str:
        # One statement counts and reads back the row it holds until commit: our own count.
        increment = self._direct(_INCREMENT)
        rows = increment.run(conn, {"app": app_id})
        if not rows:
            self._start(conn, app_id)
            rows = increment.run(conn, {"app": app_id})
        return f"{rows[0]['epoch']}.{rows[0]['counter']}"

    def _start(self, conn: Connection, app_id: str) -> None:
        epoch = base36(int(self._now().timestamp() * 1000))
        exists = select(data_versions.c.app_id).where(data_versions.c.app_id == app_id)
        if conn.execute(exists).first() is None:
            self._insert_if_absent(
                conn, insert(data_versions).values(app_id=app_id, epoch=epoch, counter=0)
            )

    @staticmethod
    def _current(conn: Connection, app_id: str) -> str:
        row = conn.execute(
            select(data_versions.c.epoch, data_versions.c.counter).where(
                data_versions.c.app_id == app_id
            )
        ).one()
        return f"{row.epoch}.{row.counter}"
