"""Engines and schema upgrades, safe when several processes open one store at once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import DBAPIError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from ._errors import StoreUnavailableError, StoreUrlError, driver_reason
from ._url import safe_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BUSY_TIMEOUT_S = 30
# "A2AP": the advisory lock class under which schema upgrades queue up
_PG_LOCK_CLASS = 0x41324150
_PG_MIGRATION_LOCK = text(
    "SELECT pg_advisory_xact_lock(:cls, hashtext(coalesce(current_schema(), '')))"
)
# Write transactions ask for this so SQLite takes its write lock up front
# (BEGIN IMMEDIATE): a read lock upgraded mid-transaction fails at once with
# "database is locked" instead of waiting for the busy timeout.
WRITE_OPTIONS: dict[str, Any] = {"a2app_sqlite_begin": "IMMEDIATE"}


def create_store_engine(url: URL) -> Engine:
    try:
        if url.get_backend_name() == "sqlite":
            return _sqlite_engine(url)
        # without a connect timeout an unreachable host hangs the caller forever
        connect_args = {} if "connect_timeout" in url.query else {"connect_timeout": 10}
        return create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except (NoSuchModuleError, ImportError) as exc:
        raise StoreUrlError(f"no database driver for {safe_url(url)}: {exc}") from None


def _sqlite_engine(url: URL) -> Engine:
    memory = url.database in (None, "", ":memory:")
    if not memory:
        assert url.database is not None
        Path(url.database).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
        # one shared connection, or every thread would see its own empty database
        poolclass=StaticPool if memory else None,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # the driver's own implicit BEGIN would defeat BEGIN IMMEDIATE and savepoints
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if not memory:
            _enter_wal(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("a2app_sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


def _enter_wal(cursor: Any) -> None:
    """Switch a file to WAL, waiting out concurrent first opens.

    SQLite answers the switch with "database is locked" at once, without its
    busy handler, while another connection is opening the same new file.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def upgrade_schema(engine: Engine) -> None:
    """Bring the schema to the newest revision, inside one locked transaction.

    Whoever gets the lock first migrates; the others wait, then find the
    schema current and change nothing. Both backends run DDL transactionally,
    so a failed upgrade leaves the previous revision intact.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    try:
        with engine.execution_options(**WRITE_OPTIONS).begin() as connection:
            if connection.dialect.name == "postgresql":
                # keyed by schema, so stores in separate schemas never wait on each other
                connection.execute(_PG_MIGRATION_LOCK, {"cls": _PG_LOCK_CLASS})
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except CommandError as exc:
        raise StoreUnavailableError(
            f"cannot upgrade the store at {safe_url(engine.url)}: {exc} "
            "(was it written by a newer version of the runtime?)"
        ) from None
    except DBAPIError as exc:
        raise StoreUnavailableError(
            f"cannot open the store at {safe_url(engine.url)}: {driver_reason(exc)}"
        ) from None
