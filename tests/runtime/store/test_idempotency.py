"""Idempotency keys (protocol §12): one holder, replays see `done`, failures free the key."""

from __future__ import annotations

import threading
from collections.abc import Callable

from runtime.store import IdemState, Store

from .conftest import FakeClock


def test_first_fresh_then_pending_then_done(store: Store) -> None:
    assert store.reserve_idempotency_key("kanban", "Card", "k1") == IdemState("fresh")
    assert store.reserve_idempotency_key("kanban", "Card", "k1") == IdemState("pending")
    store.complete_idempotency_key("kanban", "Card", "k1", record_id="42")
    assert store.reserve_idempotency_key("kanban", "Card", "k1") == IdemState("done", "42")


def test_operations_store_the_operation_name(store: Store) -> None:
    store.reserve_idempotency_key("kanban", "op:archive-board", "k")
    store.complete_idempotency_key("kanban", "op:archive-board", "k", operation="archive-board")
    state = store.reserve_idempotency_key("kanban", "op:archive-board", "k")
    assert state == IdemState("done", operation="archive-board")


def test_a_failed_first_call_leaves_the_key_free(store: Store) -> None:
    store.reserve_idempotency_key("kanban", "Card", "k1")
    store.release_idempotency_key("kanban", "Card", "k1")
    assert store.reserve_idempotency_key("kanban", "Card", "k1").status == "fresh"


def test_release_never_frees_a_completed_key(store: Store) -> None:
    store.reserve_idempotency_key("kanban", "Card", "k1")
    store.complete_idempotency_key("kanban", "Card", "k1", record_id="7")
    store.release_idempotency_key("kanban", "Card", "k1")
    assert store.reserve_idempotency_key("kanban", "Card", "k1").status == "done"


def test_keys_are_separate_per_app_and_scope(store: Store) -> None:
    store.reserve_idempotency_key("kanban", "Card", "k1")
    assert store.reserve_idempotency_key("kanban", "Card#42", "k1").status == "fresh"
    assert store.reserve_idempotency_key("other", "Card", "k1").status == "fresh"


def test_expired_keys_are_purged_on_lookup(timed_store: Store, clock: FakeClock) -> None:
    timed_store.reserve_idempotency_key("kanban", "Card", "k1")
    timed_store.complete_idempotency_key("kanban", "Card", "k1", record_id="1")
    clock.advance(86400 - 1)
    assert timed_store.reserve_idempotency_key("kanban", "Card", "k1").status == "done"
    clock.advance(1)
    assert timed_store.reserve_idempotency_key("kanban", "Card", "k1").status == "fresh"


def test_lookup_purges_every_expired_key_of_the_app(timed_store: Store, clock: FakeClock) -> None:
    for key in ("a", "b", "c"):
        timed_store.reserve_idempotency_key("kanban", "Card", key)
        timed_store.complete_idempotency_key("kanban", "Card", key, ttl_seconds=60)
    clock.advance(61)
    timed_store.reserve_idempotency_key("kanban", "Card", "d")
    with timed_store._engine.connect() as conn:
        left = conn.exec_driver_sql("SELECT key FROM a2app_idempotency_keys").scalars().all()
    assert left == ["d"]


def test_an_abandoned_reservation_frees_after_its_lease(
    timed_store: Store, clock: FakeClock
) -> None:
    timed_store.reserve_idempotency_key("kanban", "Card", "k1", lease_seconds=30)
    clock.advance(29)
    assert timed_store.reserve_idempotency_key("kanban", "Card", "k1").status == "pending"
    clock.advance(1)
    assert timed_store.reserve_idempotency_key("kanban", "Card", "k1").status == "fresh"


def test_completing_after_the_lease_ran_out_still_records(
    timed_store: Store, clock: FakeClock
) -> None:
    timed_store.reserve_idempotency_key("kanban", "Card", "k1", lease_seconds=5)
    clock.advance(10)
    timed_store.reserve_idempotency_key("kanban", "Card", "other")  # purges k1
    timed_store.complete_idempotency_key("kanban", "Card", "k1", record_id="9")
    assert timed_store.reserve_idempotency_key("kanban", "Card", "k1") == IdemState("done", "9")


def _race(stores: list[Store], key: str, per_store: int) -> list[str]:
    barrier = threading.Barrier(len(stores) * per_store)
    states: list[str] = []

    def reserve(store: Store) -> None:
        barrier.wait()
        states.append(store.reserve_idempotency_key("kanban", "Card", key).status)

    threads = [
        threading.Thread(target=reserve, args=(s,)) for s in stores for _ in range(per_store)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return states


def test_concurrent_reservations_give_exactly_one_holder(
    open_store: Callable[..., Store],
) -> None:
    stores = [open_store() for _ in range(4)]
    for round_ in range(5):
        states = _race(stores, f"race-{round_}", per_store=2)
        assert sorted(states) == ["fresh"] + ["pending"] * 7
