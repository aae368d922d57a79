"""`Store`: every piece of runtime state, keyed by app id, behind one SQLAlchemy engine."""

from __future__ import annotations

from datetime import UTC, datetime
from types import TracebackType

from sqlalchemy import Engine

from ._approvals import ApprovalsMixin
from ._base import Clock
from ._contexts import ContextsMixin
from ._direct import Statements
from ._engine import create_store_engine, require_schema, upgrade_schema
from ._feed import FeedMixin
from ._finish import FinishMixin
from ._grants import GrantsMixin
from ._jobs import JobsMixin
from ._plane import PlaneMixin
from ._realtime import RealtimeMixin
from ._url import parse_url, safe_url


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Store(GrantsMixin, FinishMixin, ApprovalsMixin, JobsMixin, PlaneMixin, ContextsMixin,
            FeedMixin, RealtimeMixin):  # fmt: skip
    """The runtime's state. Open with `Store.open(url)`; every method is one short transaction.

    Methods are synchronous and thread-safe; several processes may share one
    store (SQLite on one machine, PostgreSQL across machines).
    """

    def __init__(self, engine: Engine, *, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock = clock or _utc_now
        self._statements = Statements(engine.dialect)

    @classmethod
    def open(cls, url: str, *, clock: Clock | None = None, create: bool = True) -> Store:
        """Connect and bring the schema to the newest revision.

        `create=False` refuses (StoreMissingError) a store that does not exist
        yet instead of creating it: for commands that only look at one.
        `clock` returns the current aware datetime; tests pass one to move time.
        """
        engine = create_store_engine(parse_url(url), create=create)
        try:
            if not create:
                require_schema(engine)
            upgrade_schema(engine)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, clock=clock)

    @property
    def url(self) -> str:
        """The store URL with any password masked."""
        return safe_url(self._engine.url)

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"
