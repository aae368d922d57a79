"""Engines and schema upgrades, safe when several processes open one store at once."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from ._errors import StoreMissingError, StoreUnavailableError, StoreUrlError, driver_reason
from ._url import safe_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# prefixed like every store table, so a database shared with another
# Alembic-managed application keeps two separate version rows
VERSION_TABLE = "a2app_alembic_version"
# The store holds token hashes, audit and receipts: owner-only, like the token file.
FILE_MODE = 0o600
SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")
BUSY_TIMEOUT_S = 30
# "A2AP": the advisory lock class under which schema upgrades queue up
_PG_LOCK_CLASS = 0x41324150
_PG_MIGRATION_LOCK = text(
    "SELECT pg_advisory_xact_lock(:cls, hashtext(coalesce(current_schema(), '')))"
)
# How the next SQLite transaction of this thread or task begins. Write transactions
# ask for IMMEDIATE (`immediate()`) so SQLite takes its write lock up front: a read
# lock upgraded mid-transaction fails at once with "database is locked" instead of
# waiting for the busy timeout. Read by the dialect's `do_begin`, not by a "begin"
# event: an engine with any connection event runs SQLAlchemy's event dispatch on
# every statement, and the store runs a few statements on every request.
_BEGIN_MODE: ContextVar[str] = ContextVar("a2app_sqlite_begin", default="DEFERRED")


@contextmanager
def immediate() -> Iterator[None]:
    """Transactions begun inside take SQLite's write lock at once (other backends: no-op)."""
    token = _BEGIN_MODE.set("IMMEDIATE")
    try:
        yield
    finally:
        _BEGIN_MODE.reset(token)


def create_store_engine(url: URL, *, create: bool = True) -> Engine:
    """An engine for `url`; with `create=False` a missing SQLite file is an error, not made."""
    try:
        if url.get_backend_name() == "sqlite":
            return _sqlite_engine(url, create=create)
        # without a connect timeout an unreachable host hangs the caller forever
        connect_args = {} if "connect_timeout" in url.query else {"connect_timeout": 10}
        return create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except (NoSuchModuleError, ImportError) as exc:
        raise StoreUrlError(f"no database driver for {safe_url(url)}: {exc}") from None


def _sqlite_engine(url: URL, *, create: bool) -> Engine:
    memory = url.database in (None, "", ":memory:")
    if not memory:
        assert url.database is not None
        _prepare_file(Path(url.database), create=create)
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

    # The driver is in autocommit (above), so SQLAlchemy's own BEGIN is a no-op: this one
    # is sent on the driver's connection. SQLAlchemy wraps what it raises (a busy
    # database is its OperationalError, as for any statement).
    engine.dialect.do_begin = _do_begin  # type: ignore[method-assign,assignment]
    return engine


def _do_begin(connection: Any) -> None:
    connection.dbapi_connection.execute(f"BEGIN {_BEGIN_MODE.get()}")


def _prepare_file(path: Path, *, create: bool) -> None:
    """The database file, owner-only before SQLite opens it.

    SQLite would create it 0644; it gives its -wal, -shm and -journal files the
    mode of the database file, so making the file here makes all of them 0600.
    Files left looser by an older version are tightened.
    """
    if not path.exists():
        if not create:
            raise StoreMissingError(f"no store at {path.resolve()}")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    for suffix in SQLITE_COMPANIONS:
        companion = path.with_name(path.name + suffix)
        try:
            info = companion.stat()
            if info.st_mode & 0o077 and info.st_uid == os.geteuid():
                os.chmod(companion, stat.S_IMODE(info.st_mode) & FILE_MODE)
        except OSError:
            continue


def require_schema(engine: Engine) -> None:
    """Refuse a database that holds no store yet (no version table), creating nothing."""
    try:
        with engine.connect() as connection:
            present = inspect(connection).has_table(VERSION_TABLE)
    except DBAPIError as exc:
        raise StoreUnavailableError(
            f"cannot open the store at {safe_url(engine.url)}: {driver_reason(exc)}"
        ) from None
    if not present:
        where = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
        place = str(Path(where).resolve()) if where else safe_url(engine.url)
        raise StoreMissingError(f"no store at {place}: it holds no a2app tables")


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
        with immediate(), engine.begin() as connection:
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
