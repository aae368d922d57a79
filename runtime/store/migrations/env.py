"""Alembic environment: migrates on the connection `Store.open` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from runtime.store._engine import VERSION_TABLE


def _run() -> None:
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("the store's migrations run only through Store.open(url)")
    context.configure(connection=connection, version_table=VERSION_TABLE)
    with context.begin_transaction():
        context.run_migrations()


_run()
