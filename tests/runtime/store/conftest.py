from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from runtime.store import Store
from tests.fixtures.databases import DATABASES, database


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture(params=DATABASES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def open_store(store_url: str) -> Iterator[Callable[..., Store]]:
    """Open more Store instances on the test's database; all are closed afterwards."""
    opened: list[Store] = []

    def _open(clock: Callable[[], datetime] | None = None) -> Store:
        store = Store.open(store_url, clock=clock)
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[..., Store]) -> Store:
    return open_store()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed_store(open_store: Callable[..., Store], clock: FakeClock) -> Store:
    return open_store(clock=clock)
