"""What every part of the store shares: the engines, the clock, one transaction per call."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.sql.expression import ClauseElement, Executable

from ._direct import Direct, Statements
from ._engine import immediate
from ._errors import StoreUnavailableError, driver_reason
from ._url import safe_url

Clock = Callable[[], datetime]


class StoreBase:
    _engine: Engine
    _clock: Clock
    _statements: Statements  # the engine's `_direct` statements, compiled on first use

    def _direct(self, statement: ClauseElement) -> Direct:
        """`statement` compiled for the driver's cursor: for the statements every
        request runs (`_direct`'s docstring says why)."""
        return self._statements(statement)

    def _now(self) -> datetime:
        return self._clock()

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._translated(), self._engine.connect() as connection:
            yield connection

    @contextmanager
    def _driver(self) -> Iterator[Any]:
        """A driver connection from the pool, for one `_direct` read: no Core connection
        is built around it. SQLite runs the read in autocommit; the pool rolls back
        whatever another driver began when it takes the connection back."""
        with self._translated():
            connection = self._engine.raw_connection()
            try:
                yield connection
            finally:
                connection.close()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """One short write transaction, committed on exit."""
        with self._translated(), self._engine.connect() as connection:
            # Only the BEGIN is immediate: a read made meanwhile (another connection)
            # begins as reads do.
            with immediate():
                transaction = connection.begin()
            with transaction:
                yield connection

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except (OperationalError, InterfaceError) as exc:
            raise StoreUnavailableError(
                f"the store at {safe_url(self._engine.url)} failed: {driver_reason(exc)}"
            ) from None

    @staticmethod
    def _insert_if_absent(connection: Connection, statement: Executable) -> bool:
        """Insert, or report that a concurrent writer got there first.

        The savepoint keeps the outer transaction usable: PostgreSQL aborts a
        whole transaction on a unique violation otherwise.
        """
        try:
            with connection.begin_nested():
                connection.execute(statement)
        except IntegrityError:
            return False
        return True
