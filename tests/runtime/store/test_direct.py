"""Statements on the driver's cursor store and read exactly what the Core path does."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, select, text
from sqlalchemy.exc import DBAPIError

from runtime.store import Store, WriteEnd
from runtime.store._direct import Direct
from runtime.store._tables import audit, grants, receipts

TOKEN = "a2app_" + "5e" * 24
AT = datetime(2030, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def _raw_cells(store: Store, table: str) -> list[tuple[object, ...]]:
    """The cells as the database holds them, with no type processing on the way out."""
    with store._engine.connect() as conn:
        rows = conn.exec_driver_sql(f"SELECT * FROM {table} ORDER BY id").fetchall()
    return [tuple(row)[1:] for row in rows]  # the generated id aside


def test_a_write_end_stores_the_cells_the_core_path_stores(store: Store) -> None:
    store._clock = lambda: AT
    store.start_data_version("kanban")
    store.add_receipt(app_id="kanban", target="data:cards", text="Created card 1.",
                      credential_id="cred_ci", record_id="1")  # fmt: skip
    store.add_audit(app_id="kanban", target="data:cards", outcome="ok",
                    credential_id="cred_ci", agent_name="ci", asserted_agent="bot",
                    principal="owner", record_id="1")  # fmt: skip
    store.finish_write(
        WriteEnd(app_id="kanban", target="data:cards", record_id="1", credential_id="cred_ci",
                 agent_name="ci", principal="owner", asserted_agent="bot",
                 receipt_target="data:cards", receipt_record_id="1", receipt="Created card 1.")
    )  # fmt: skip
    for table in (receipts.name, audit.name):
        core, direct = _raw_cells(store, table)
        assert core == direct, table
    first, second = store.receipts_since("kanban")
    assert first.at == second.at == AT


def test_a_grant_read_directly_equals_the_grant_read_by_core(store: Store) -> None:
    store.create_grant(id="cred_ci", agent_name="ci", scopes=["data:cards:read", "op:x"],
                       token=TOKEN, app_id="kanban", principal="alice")  # fmt: skip
    found = store.find_grant(TOKEN, "kanban")
    assert found is not None and found == store.get_grant("cred_ci")
    assert found.created_at.tzinfo is UTC
    assert found.scopes == ("data:cards:read", "op:x")


def test_a_constant_of_the_statement_is_bound_with_the_values(store: Store) -> None:
    statement = select(grants.c.id, (bindparam("n") + 1).label("next")).where(
        grants.c.agent_name == bindparam("agent")
    )
    store.create_grant(id="cred_ci", agent_name="ci", scopes=["*"], token=TOKEN)
    with store._engine.connect() as conn:
        rows = Direct(statement, store._engine.dialect).run(conn, {"n": 41, "agent": "ci"})
    assert rows == [{"id": "cred_ci", "next": 42}]


def test_a_driver_error_is_raised_as_the_core_path_raises_it(store: Store) -> None:
    statement = text("SELECT missing_column FROM a2app_grants")
    with store._engine.connect() as conn, pytest.raises(DBAPIError) as raised:
        Direct(statement, store._engine.dialect).run(conn, {})
    assert isinstance(raised.value.orig, store._engine.dialect.loaded_dbapi.Error)
    assert "missing_column" in str(raised.value.orig)
