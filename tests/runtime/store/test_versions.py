"""dataVersion: one epoch per app that every process agrees on, and counts that never go back."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from runtime.store import Store
from runtime.store._versions import base36

from .conftest import FakeClock


def _counter(version: str) -> int:
    return int(version.rsplit(".", 1)[1])


def test_base36_matches_javascript() -> None:
    # (1700000000000).toString(36) in JavaScript
    assert base36(1700000000000) == "loyw3v28"
    assert base36(0) == "0" and base36(35) == "z" and base36(36) == "10"


def test_start_opens_an_epoch_at_zero(timed_store: Store, clock: FakeClock) -> None:
    version = timed_store.start_data_version("kanban")
    assert version == f"{base36(int(clock.now.timestamp() * 1000))}.0"
    assert re.fullmatch(r"[0-9a-z]+\.0", version)
    assert timed_store.data_version("kanban") == version


def test_a_restart_keeps_the_epoch_and_the_count(
    open_store: Callable[..., Store], clock: FakeClock
) -> None:
    first = open_store(clock=clock)
    first.start_data_version("kanban")
    first.bump_data_version("kanban")
    clock.advance(3600)
    assert open_store(clock=clock).start_data_version("kanban").endswith(".1")
    assert first.data_version("kanban") == open_store().data_version("kanban")


def test_two_instances_agree_and_bumps_are_monotonic(open_store: Callable[..., Store]) -> None:
    one, two = open_store(), open_store()
    start = one.start_data_version("kanban")
    assert two.start_data_version("kanban") == start
    seen = [one.bump_data_version("kanban"), two.bump_data_version("kanban")]
    seen.append(one.bump_data_version("kanban"))
    assert [_counter(v) for v in seen] == [1, 2, 3]
    assert one.data_version("kanban") == two.data_version("kanban") == seen[-1]


def test_apps_count_separately(store: Store) -> None:
    store.start_data_version("a")
    store.start_data_version("b")
    store.bump_data_version("a")
    assert _counter(store.data_version("a")) == 1
    assert _counter(store.data_version("b")) == 0


def test_reading_or_bumping_an_unstarted_app_starts_it(store: Store) -> None:
    assert store.data_version("fresh").endswith(".0")
    assert store.bump_data_version("other").endswith(".1")


def test_concurrent_bumps_are_all_counted(open_store: Callable[..., Store]) -> None:
    stores = [open_store() for _ in range(3)]
    stores[0].start_data_version("kanban")
    results: list[int] = []

    def bump(store: Store) -> None:
        for _ in range(10):
            results.append(_counter(store.bump_data_version("kanban")))

    threads = [threading.Thread(target=bump, args=(s,)) for s in stores for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(1, 61))
    assert _counter(stores[1].data_version("kanban")) == 60
