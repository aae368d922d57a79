"""Approval keys (protocol §13): issued with an expiry, consumed exactly once."""

from __future__ import annotations

import threading
from collections.abc import Callable

from runtime.store import Store

from .conftest import FakeClock

KEY = "5bf9fb4565dc262a18f9d14c0f3ce2ff9789b0d76edda8fdcf74248413598f20"


def test_an_issued_key_is_single_use(store: Store) -> None:
    store.issue_approval("kanban", KEY, "archive-board")
    assert store.consume_approval("kanban", KEY) is True
    assert store.consume_approval("kanban", KEY) is False


def test_a_key_never_issued_or_for_another_app_is_refused(store: Store) -> None:
    assert store.consume_approval("kanban", KEY) is False
    store.issue_approval("kanban", KEY, "archive-board")
    assert store.consume_approval("other", KEY) is False


def test_an_expired_key_is_refused(timed_store: Store, clock: FakeClock) -> None:
    timed_store.issue_approval("kanban", KEY, "archive-board")
    clock.advance(600)
    assert timed_store.consume_approval("kanban", KEY) is False


def test_a_key_is_valid_until_just_before_it_expires(timed_store: Store, clock: FakeClock) -> None:
    timed_store.issue_approval("kanban", KEY, "archive-board", ttl_seconds=60)
    clock.advance(59)
    assert timed_store.consume_approval("kanban", KEY) is True


def test_reissuing_a_used_key_makes_it_usable_again(timed_store: Store, clock: FakeClock) -> None:
    timed_store.issue_approval("kanban", KEY, "archive-board")
    assert timed_store.consume_approval("kanban", KEY)
    clock.advance(5)
    timed_store.issue_approval("kanban", KEY, "archive-board")
    assert timed_store.consume_approval("kanban", KEY) is True


def test_only_one_of_many_concurrent_consumers_wins(open_store: Callable[..., Store]) -> None:
    stores = [open_store() for _ in range(4)]
    stores[0].issue_approval("kanban", KEY, "archive-board")
    barrier = threading.Barrier(8)
    wins: list[bool] = []

    def consume(store: Store) -> None:
        barrier.wait()
        wins.append(store.consume_approval("kanban", KEY))

    threads = [threading.Thread(target=consume, args=(s,)) for s in stores for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(wins) == [False] * 7 + [True]
