"""Where the store lives: the state directory and the store URL."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from ._errors import StoreUrlError

_BACKENDS = ("sqlite", "postgresql")


def state_dir(*, create: bool = True) -> Path:
    """`$A2APP_HOME`, else `./.a2app`; created owner-only (0700) when missing, unless not to."""
    path = Path(os.environ.get("A2APP_HOME") or ".a2app")
    if create and not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def default_store_url(*, create: bool = True) -> str:
    """`$A2APP_STORE`, else an embedded SQLite file in the state directory.

    `create=False` leaves a missing state directory alone, for callers that
    only read an existing store.
    """
    explicit = os.environ.get("A2APP_STORE")
    if explicit:
        return explicit
    return f"sqlite:///{(state_dir(create=create) / 'store.sqlite3').resolve()}"


def parse_url(url: str) -> URL:
    """The store URL as SQLAlchemy sees it; plain `postgresql://` means psycopg 3."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        # the raw text may hold a password, so it is not echoed back
        raise StoreUrlError(
            "not a store URL; expected sqlite:///PATH or postgresql://[USER@]HOST[:PORT]/DB"
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in _BACKENDS:
        raise StoreUrlError(
            f"unsupported store database {parsed.get_backend_name()!r} in "
            f"{safe_url(url)}; use sqlite:///PATH or postgresql://HOST/DB"
        )
    return parsed


def safe_url(url: str | URL) -> str:
    """The URL fit for messages and logs: any password is masked."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "<malformed URL>"
    return parsed.render_as_string(hide_password=True)
