"""Events and tasks in the store: one occurrence stored once, status changes as compare-and-set,
the sweep of stale claims, and the UI context; on SQLite and PostgreSQL, across instances."""

from __future__ import annotations

from collections.abc import Callable

from runtime.store import Context, Store

from .conftest import FakeClock


def _raise(store: Store, n: int, *, key: str | None, task: bool = True) -> tuple[str, str | None]:
    event, queued, _ = store.raise_event(
        app_id="kanban", event_id=f"evt_{n}", type="card.due_soon", payload={"id": "c1"},
        dedup_key=key, task=(f"tsk_{n}", "summarize") if task else None,
    )  # fmt: skip
    return event.id, None if queued is None else queued.id


def test_an_event_with_a_task_is_stored_with_the_task_linked(store: Store) -> None:
    event, task, new = store.raise_event(
        app_id="kanban", event_id="evt_1", type="card.due_soon", payload={"id": "c1"},
        dedup_key="k1", task=("tsk_1", "summarize"),
    )  # fmt: skip
    assert new and task is not None
    assert (task.status, task.event_id, task.capability) == ("submitted", "evt_1", "summarize")
    assert (task.step, task.percent, task.deliveries, task.payload) == (None, 0, 1, {"id": "c1"})
    assert store.events_since("kanban") == [event]
    assert store.events_since("other") == []


def test_a_repeated_dedup_key_returns_the_stored_occurrence(
    open_store: Callable[..., Store],
) -> None:
    first, second = open_store(), open_store()
    assert _raise(first, 1, key="k") == ("evt_1", "tsk_1")
    event, task, new = second.raise_event(
        app_id="kanban", event_id="evt_2", type="card.due_soon", payload={"id": "c1"},
        dedup_key="k", task=("tsk_2", "summarize"),
    )  # fmt: skip
    assert not new and event.id == "evt_1" and task is not None and task.id == "tsk_1"
    assert [e.id for e in first.events_since("kanban")] == ["evt_1"]
    assert [t.id for t in first.list_tasks("kanban")] == ["tsk_1"]


def test_events_without_a_key_or_task_each_count_and_page_by_seq(store: Store) -> None:
    for n in range(3):
        assert _raise(store, n, key=None, task=False)[1] is None
    seqs = [e.seq for e in store.events_since("kanban")]
    assert seqs == sorted(seqs) and len(seqs) == 3
    assert [e.id for e in store.events_since("kanban", seqs[0])] == ["evt_1", "evt_2"]
    assert store.list_tasks("kanban") == []


def test_update_is_a_compare_and_set_on_status(store: Store) -> None:
    _raise(store, 1, key="k")
    claimed = store.update_task(
        "kanban", "tsk_1", expect=("submitted",), values={"status": "working"}
    )
    assert claimed is not None and claimed.status == "working"
    # a second caller expecting `submitted` loses: nothing changes
    again = store.update_task("kanban", "tsk_1", expect=("submitted",), values={"status": "x"})
    assert again is None
    assert store.get_task("kanban", "tsk_1") == claimed
    assert store.get_task("other", "tsk_1") is None
    assert [t.id for t in store.list_tasks("kanban", "working")] == ["tsk_1"]
    assert store.list_tasks("kanban", "submitted") == []


def test_sweep_redelivers_a_stale_claim_then_fails_it_after_five(
    timed_store: Store, clock: FakeClock
) -> None:
    _raise(timed_store, 1, key="k")
    for delivery in range(1, 6):
        task = timed_store.update_task(
            "kanban", "tsk_1", expect=("submitted",),
            values={"status": "working", "claim_credential": "cred_a", "step": "s"},
        )  # fmt: skip
        assert task is not None and task.deliveries == delivery
        clock.advance(59)
        assert timed_store.sweep_tasks("kanban", stale_seconds=60, max_deliveries=5) == 0
        clock.advance(2)
        assert timed_store.sweep_tasks("kanban", stale_seconds=60, max_deliveries=5) == 1
        swept = timed_store.get_task("kanban", "tsk_1")
        assert swept is not None
        if delivery < 5:
            assert (swept.status, swept.claim_credential, swept.step) == ("submitted", None, None)
    final = timed_store.get_task("kanban", "tsk_1")
    assert final is not None and (final.status, final.reason) == ("failed", "redelivery_exhausted")
    assert timed_store.sweep_tasks("kanban", stale_seconds=60, max_deliveries=5) == 0


def test_the_context_is_replaced_whole_and_kept_per_app(open_store: Callable[..., Store]) -> None:
    one, two = open_store(), open_store()
    assert one.get_context("kanban") is None
    one.set_context("kanban", Context("board", (("cards", "c1"), ("cards", "c2"))))
    assert two.get_context("kanban") == Context("board", (("cards", "c1"), ("cards", "c2")))
    two.set_context("kanban", Context(None, ()))
    assert one.get_context("kanban") == Context(None, ())
    assert one.get_context("other") is None
