"""Approval keys (protocol §13): issued with an expiry, decided by the owner, used once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

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


# --- owner decisions (`serve.approvals: owner`) ---

ARGS = {"board": "board_main", "note": "façade ✓", "n": [1, 2.5, None]}
DAY = 24 * 3600


def test_a_requested_key_keeps_its_arguments_and_waits_for_the_owner(store: Store) -> None:
    asked = store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    assert (asked.state, asked.decision, asked.args) == ("pending", None, ARGS)
    assert asked.expires_at - asked.issued_at == timedelta(seconds=DAY)
    assert store.consume_approved("kanban", KEY) is False
    [listed] = store.list_approvals("kanban")
    assert listed == asked


def test_an_approved_key_runs_once(store: Store) -> None:
    store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    decided = store.decide_approval("kanban", KEY, "approved")
    assert decided is not None and decided.state == "approved" and decided.decided_at
    assert store.consume_approved("kanban", KEY) is True
    assert store.consume_approved("kanban", KEY) is False
    used = store.approval("kanban", KEY)
    assert used is not None and used.state == "used"


def test_a_denied_key_never_runs_and_asking_again_does_not_lift_the_denial(store: Store) -> None:
    store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    assert store.decide_approval("kanban", KEY, "denied") is not None
    assert store.consume_approved("kanban", KEY) is False
    again = store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    assert again.state == "denied"


def test_asking_again_neither_resets_an_approval_nor_extends_the_wait(
    timed_store: Store, clock: FakeClock
) -> None:
    first = timed_store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    timed_store.decide_approval("kanban", KEY, "approved")
    clock.advance(60)
    again = timed_store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    assert again.state == "approved" and again.expires_at == first.expires_at


def test_a_used_key_is_asked_for_anew(store: Store) -> None:
    store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    store.decide_approval("kanban", KEY, "approved")
    assert store.consume_approved("kanban", KEY)
    fresh = store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    assert (fresh.state, fresh.decision, fresh.used_at) == ("pending", None, None)


def test_the_owner_may_change_their_mind_until_the_key_is_used(store: Store) -> None:
    store.request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    store.decide_approval("kanban", KEY, "approved")
    assert store.decide_approval("kanban", KEY, "denied") is not None
    assert store.consume_approved("kanban", KEY) is False
    store.decide_approval("kanban", KEY, "approved")
    assert store.consume_approved("kanban", KEY) is True
    assert store.decide_approval("kanban", KEY, "denied") is None


def test_no_decision_on_a_key_that_is_expired_or_was_never_issued(
    timed_store: Store, clock: FakeClock
) -> None:
    assert timed_store.decide_approval("kanban", KEY, "approved") is None
    timed_store.request_approval("kanban", KEY, "archive-board", ARGS, 60)
    clock.advance(60)
    assert timed_store.decide_approval("kanban", KEY, "approved") is None
    expired = timed_store.approval("kanban", KEY)
    assert expired is not None and expired.state == "expired"
    assert timed_store.consume_approved("kanban", KEY) is False


def test_a_late_approval_leaves_time_to_use_it(timed_store: Store, clock: FakeClock) -> None:
    timed_store.request_approval("kanban", KEY, "archive-board", ARGS, 120)
    clock.advance(100)
    decided = timed_store.decide_approval("kanban", KEY, "approved")
    assert decided is not None and decided.expires_at == clock.now + timedelta(seconds=600)
    clock.advance(599)
    assert timed_store.consume_approved("kanban", KEY) is True


def test_a_host_key_is_not_an_owner_approval(store: Store) -> None:
    store.issue_approval("kanban", KEY, "archive-board", args=ARGS)
    issued = store.approval("kanban", KEY)
    assert issued is not None and issued.args == ARGS and issued.state == "pending"
    assert store.consume_approved("kanban", KEY) is False
    assert store.consume_approval("kanban", KEY) is True


def test_listing_by_app_and_key_prefix(store: Store) -> None:
    other = "5bf9" + "0" * 60
    store.request_approval("kanban", KEY, "archive-board", {}, DAY)
    store.request_approval("kanban", other, "archive-board", {"board": "b2"}, DAY)
    store.request_approval("crm", KEY, "drop-contact", {"contact": "c1"}, DAY)
    assert [a.app_id for a in store.list_approvals()] == ["kanban", "kanban", "crm"]
    assert {a.key for a in store.list_approvals("kanban", "5bf9")} == {KEY, other}
    assert [a.app_id for a in store.list_approvals(key_prefix=KEY[:10].upper())] == [
        "kanban",
        "crm",
    ]
    assert store.list_approvals("nope") == []


def test_only_one_of_many_concurrent_approved_consumers_wins(
    open_store: Callable[..., Store],
) -> None:
    stores = [open_store() for _ in range(4)]
    stores[0].request_approval("kanban", KEY, "archive-board", ARGS, DAY)
    stores[1].decide_approval("kanban", KEY, "approved")
    barrier = threading.Barrier(8)
    wins: list[bool] = []

    def consume(store: Store) -> None:
        barrier.wait()
        wins.append(store.consume_approved("kanban", KEY))

    threads = [threading.Thread(target=consume, args=(s,)) for s in stores for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(wins) == [False] * 7 + [True]


def test_concurrent_requests_for_one_key_leave_one_row(open_store: Callable[..., Store]) -> None:
    stores = [open_store() for _ in range(4)]
    barrier = threading.Barrier(4)
    states: list[str] = []

    def ask(store: Store) -> None:
        barrier.wait()
        states.append(store.request_approval("kanban", KEY, "archive-board", ARGS, DAY).state)

    threads = [threading.Thread(target=ask, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert states == ["pending"] * 4
    assert len(stores[0].list_approvals()) == 1
