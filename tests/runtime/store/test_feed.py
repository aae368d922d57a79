"""The change feed in the store: the snapshot, ordered changes, and the lease that lets one
process poll an entity at a time; on SQLite and PostgreSQL, across instances."""

from __future__ import annotations

from collections.abc import Callable

from runtime.store import Seen, Store

from .conftest import FakeClock


def test_the_baseline_replaces_the_snapshot_and_records_no_change(store: Store) -> None:
    store.feed_baseline("kanban", "cards", {"1": "a" * 64, "2": "b" * 64})
    store.feed_baseline("kanban", "cards", {"2": "c" * 64})
    assert store.feed_snapshot("kanban", "cards") == {"2": "c" * 64}
    assert store.feed_snapshot("kanban", "lists") == {}
    assert store.feed_changes_since("kanban") == []
    state = store.feed_state("kanban", "cards")
    assert state is not None and state.baseline_at is not None
    assert store.feed_state("kanban", "lists") is None


def test_changes_are_ordered_and_move_the_snapshot(open_store: Callable[..., Store]) -> None:
    first, second = open_store(), open_store()
    first.feed_baseline("kanban", "cards", {"1": "a" * 64})
    made = first.feed_record("kanban", "cards", [
        Seen("create", "2", "b" * 64, {"id": "2", "title": "new"}),
        Seen("update", "1", "c" * 64, {"id": "1", "title": "changed"}),
    ])  # fmt: skip
    gone = second.feed_record("kanban", "cards", [Seen("delete", "2", None)])
    assert [c.action for c in made + gone] == ["create", "update", "delete"]
    assert made[0].seq < made[1].seq < gone[0].seq
    assert second.feed_snapshot("kanban", "cards") == {"1": "c" * 64}
    stored = first.feed_changes_since("kanban")
    assert stored == made + gone
    assert stored[0].record == {"id": "2", "title": "new"} and stored[2].record is None
    assert first.feed_changes_since("kanban", made[1].seq) == gone
    assert first.feed_changes_since("other") == []


def test_one_holder_at_a_time_until_the_lease_expires(
    open_store: Callable[..., Store], clock: FakeClock
) -> None:
    one, two = open_store(clock=clock), open_store(clock=clock)
    assert one.feed_lease("kanban", "cards", "p1", 30)
    assert not two.feed_lease("kanban", "cards", "p2", 30)
    assert two.feed_lease("kanban", "lists", "p2", 30)  # another entity is free
    assert one.feed_lease("kanban", "cards", "p1", 30)  # the holder renews
    clock.advance(31)
    assert two.feed_lease("kanban", "cards", "p2", 30)  # expired: taken over
    assert not one.feed_lease("kanban", "cards", "p1", 30)
    two.feed_release("kanban", "cards", "p2")
    assert one.feed_lease("kanban", "cards", "p1", 30)
    state = one.feed_state("kanban", "cards")
    assert state is not None and state.holder == "p1"


def test_the_note_says_where_a_walk_stopped(store: Store) -> None:
    store.feed_note("kanban", "cards", "stopped at page 3: budget")
    state = store.feed_state("kanban", "cards")
    assert state is not None and state.note == "stopped at page 3: budget"


def test_a_change_the_snapshot_holds_already_is_recorded_once(
    open_store: Callable[..., Store],
) -> None:
    runtime, poller = open_store(), open_store()
    runtime.feed_baseline("kanban", "cards", {"1": "a" * 64})
    written = runtime.feed_record("kanban", "cards", [Seen("update", "1", "b" * 64, {"id": "1"})])
    # the poller read the snapshot before that write, and met the written record
    again = poller.feed_record("kanban", "cards", [
        Seen("update", "1", "b" * 64, {"id": "1"}), Seen("delete", "9", None),
    ])  # fmt: skip
    assert len(written) == 1 and again == []
    assert [c.seq for c in poller.feed_changes_since("kanban")] == [written[0].seq]


def test_changes_whose_event_was_not_raised_are_found(store: Store) -> None:
    made = store.feed_record("kanban", "cards", [
        Seen("create", "1", "a" * 64, {"id": "1"}), Seen("create", "2", "b" * 64, {"id": "2"}),
    ])  # fmt: skip
    store.raise_event(app_id="kanban", event_id="evt_1", type="cards.created",
                      payload={"id": "1"}, dedup_key=f"feed:{made[0].seq}")  # fmt: skip
    assert store.feed_unraised("kanban", "feed:") == [made[1]]
    assert store.feed_unraised("other", "feed:") == []
