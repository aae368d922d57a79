"""The two databases every store test runs on.

PostgreSQL tests each get a freshly created schema, so parallel runs and
reruns never see each other's rows. The server is required: when it does not
answer, the test fails rather than skips.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

POSTGRES_URL = "postgresql+psycopg://127.0.0.1:5432/test"


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'store.sqlite3'}"


def _admin_dsn() -> str:
    return make_url(POSTGRES_URL).set(drivername="postgresql").render_as_string(False)


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A store URL whose connections live in a new, empty schema, dropped afterwards."""
    name = f"a2app_test_{secrets.token_hex(6)}"
    try:
        admin = psycopg.connect(_admin_dsn(), autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {POSTGRES_URL} does not answer: {exc}")
    with admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    try:
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(_admin_dsn(), autocommit=True, connect_timeout=5) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))


@contextmanager
def database(kind: str, directory: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield sqlite_url(directory)
    else:
        with postgres_schema() as url:
            yield url


DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
