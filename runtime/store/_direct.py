"""The statements every request runs, sent on the driver's own cursor.

SQLAlchemy's execute path costs far more than an indexed lookup itself: on SQLite
here, a grant lookup took 125 µs through `Connection.execute` and 7 µs on the
driver's cursor. The few statements on every request's path are still written as
SQLAlchemy Core, compiled once per dialect, and run with their types' own bind and
result processors, so what they store and read is exactly what the Core path stores
and reads; everything else in the store keeps the Core path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

Processor = Callable[[Any], Any] | None


class Direct:
    """One Core statement compiled for one dialect, run on a connection's driver cursor."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)  # a statement, not DDL
        self.sql = compiled.string
        self._dialect = dialect
        self._driver_error: type[Exception] = dialect.loaded_dbapi.Error
        # Positional paramstyles (SQLite's qmark) take a tuple in `positiontup` order;
        # named ones (psycopg's pyformat) take a mapping.
        self._order: Sequence[str] | None = (
            tuple(compiled.positiontup or ()) if compiled.positional else None
        )
        # Values the statement carries itself (the 1 of `counter + 1`).
        self._fixed: dict[str, Any] = {
            name: bind.effective_value for name, bind in compiled.binds.items() if not bind.required
        }
        self._binds: dict[str, Processor] = {
            name: bind.type.dialect_impl(dialect).bind_processor(dialect)
            for name, bind in compiled.binds.items()
        }
        # A select's columns, or what an insert or update returns; none for text.
        columns = list(getattr(statement, "exported_columns", ()))
        self.names: tuple[str, ...] = tuple(column.key for column in columns)
        self._results: tuple[Processor, ...] = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        )

    def _parameters(self, values: Mapping[str, Any]) -> Sequence[Any] | dict[str, Any]:
        bound = {
            name: value if (process := self._binds.get(name)) is None else process(value)
            for name, value in {**self._fixed, **values}.items()
        }
        if self._order is None:
            return bound
        return tuple(bound[name] for name in self._order)

    def run(self, connection: Connection | Any, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Execute on a Core connection's driver connection (inside its transaction), or
        on a driver connection itself; the rows it returns, each a mapping of column name
        to the processed value."""
        parameters = self._parameters(values)
        driver = (
            connection.connection.dbapi_connection
            if isinstance(connection, Connection)
            else connection
        )
        assert driver is not None, "the connection was closed"
        cursor = driver.cursor()
        try:
            cursor.execute(self.sql, parameters)
            rows = cursor.fetchall() if self.names else []
        except self._driver_error as exc:
            # Wrapped as the Core path wraps it, so the store's handlers (a busy
            # database, a unique violation) see the same exception classes.
            raise DBAPIError.instance(
                self.sql, parameters, exc, self._driver_error, dialect=self._dialect
            ) from exc
        finally:
            cursor.close()
        return [self._row(raw) for raw in rows]

    def _row(self, raw: Sequence[Any]) -> dict[str, Any]:
        return {
            name: value if process is None else process(value)
            for name, value, process in zip(self.names, raw, self._results, strict=True)
        }


class Statements:
    """`Direct` statements of one engine, compiled on first use."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        # Keyed by identity (the statements are module constants, built once); the
        # statement is kept beside its compiled form so an id is never reused.
        self._compiled: dict[int, tuple[ClauseElement, Direct]] = {}

    def __call__(self, statement: ClauseElement) -> Direct:
        found = self._compiled.get(id(statement))
        if found is None or found[0] is not statement:
            found = self._compiled[id(statement)] = (statement, Direct(statement, self._dialect))
        return found[1]
