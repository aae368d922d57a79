"""Opening a store: migrations on an empty database, reopening, concurrent first opens."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from runtime.store import Store, StoreUnavailableError, StoreUrlError
from runtime.store._engine import MIGRATIONS
from runtime.store._tables import metadata
from runtime.store._url import parse_url

TABLES = {
    "a2app_alembic_version",
    "a2app_grants",
    "a2app_data_versions",
    "a2app_idempotency_keys",
    "a2app_approvals",
    "a2app_receipts",
    "a2app_audit",
    "a2app_jobs",
    "a2app_events",
    "a2app_tasks",
    "a2app_contexts",
    "a2app_feed_records",
    "a2app_feed_changes",
    "a2app_feed_state",
    "a2app_realtime_holders",
    "a2app_realtime_clients",
}
HEAD = ["0005"]  # the newest migration


def _version(url: str) -> list[str]:
    engine = create_engine(parse_url(url))
    try:
        with engine.connect() as conn:
            return [
                r[0] for r in conn.execute(text("SELECT version_num FROM a2app_alembic_version"))
            ]
    finally:
        engine.dispose()


def test_migrations_create_every_table_on_an_empty_database(store_url: str) -> None:
    engine = create_engine(parse_url(store_url))
    try:
        assert not set(inspect(engine).get_table_names()) & TABLES
        Store.open(store_url).close()
        assert set(inspect(engine).get_table_names()) >= TABLES
    finally:
        engine.dispose()
    assert _version(store_url) == HEAD


def test_a_first_revision_store_is_upgraded_with_its_data(store_url: str) -> None:
    """A store written before idempotency outcomes existed opens, keeps its keys, and
    reads them as plain successes."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(parse_url(store_url))
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0001")
            conn.execute(
                text(
                    "INSERT INTO a2app_idempotency_keys (app_id, scope, key, record_id, "
                    "created_at, expires_at, completed_at) VALUES ('app', 'cards', 'k1', "
                    "'rec_1', :now, :later, :now)"
                ),
                {"now": "2026-01-01 00:00:00", "later": "2999-01-01 00:00:00"},
            )
    finally:
        engine.dispose()
    store = Store.open(store_url)
    try:
        held = store.reserve_idempotency_key("app", "cards", "k1")
    finally:
        store.close()
    assert (held.status, held.record_id, held.outcome) == ("done", "rec_1", None)
    assert _version(store_url) == HEAD


def test_reopening_changes_nothing_and_keeps_the_data(
    open_store: Callable[..., Store], store_url: str
) -> None:
    first = open_store()
    first.create_grant(id="cred_a", agent_name="a", scopes=["*"], token="tok-a")
    first.close()
    again = open_store()
    assert [g.id for g in again.list_grants()] == ["cred_a"]
    assert _version(store_url) == HEAD


def test_migrated_schema_matches_the_model(store: Store, store_url: str) -> None:
    engine = create_engine(parse_url(store_url))
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "version_table": "a2app_alembic_version"}
            )
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()


def test_concurrent_first_opens_all_succeed(store_url: str) -> None:
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def opener() -> None:
        barrier.wait()
        try:
            Store.open(store_url).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert _version(store_url) == HEAD


def _open_in_process(url: str, start: Any) -> None:
    start.wait()
    store = Store.open(url)
    store.start_data_version("app")
    store.close()


def test_two_processes_open_a_fresh_store_at_once(store_url: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    workers = [ctx.Process(target=_open_in_process, args=(store_url, start)) for _ in range(2)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    with Store.open(store_url) as store:
        assert store.data_version("app").endswith(".0")


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'deep' / 'dir' / 'store.sqlite3'}")
    try:
        with store._engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    finally:
        store.close()


def test_migrations_ship_inside_the_package() -> None:
    assert (MIGRATIONS / "env.py").is_file()
    assert list((MIGRATIONS / "versions").glob("v*.py"))


def test_a_store_from_a_newer_runtime_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    Store.open(url).close()
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE a2app_alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(StoreUnavailableError, match="newer version"):
        Store.open(url)


def test_unreachable_postgresql_is_a_clear_error() -> None:
    with pytest.raises(StoreUnavailableError, match="cannot open the store at postgresql"):
        Store.open("postgresql://127.0.0.1:1/test")


@pytest.mark.parametrize("url", ["not a url", "mysql://127.0.0.1/db"])
def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(StoreUrlError):
        Store.open(url)


@pytest.mark.parametrize(
    ("transaction", "locks"), [("_write", True), ("_read", False)], ids=["write", "read"]
)
def test_sqlite_write_transactions_take_the_write_lock_at_begin(
    tmp_path: Path, transaction: str, locks: bool
) -> None:
    """A write begins IMMEDIATE (its lock taken before any statement, so it waits out
    another writer instead of failing on a read lock it cannot upgrade); a read begins
    DEFERRED and holds no lock. The BEGIN is the dialect's, with no engine event."""
    import sqlite3

    path = tmp_path / "store.sqlite3"
    store = Store.open(f"sqlite:///{path}")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with getattr(store, transaction)() as conn:
            conn.execute(text("SELECT count(*) FROM a2app_grants"))  # a read begins here
            assert conn.connection.dbapi_connection.in_transaction
            if locks:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            else:
                other.execute("BEGIN IMMEDIATE")
                other.execute("ROLLBACK")
        # ended (committed or rolled back): the lock is free again
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        assert not store._engine._has_events  # no per-statement event dispatch
    finally:
        other.close()
        store.close()
