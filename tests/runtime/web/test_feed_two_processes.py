"""The change feed with two runtime processes on one PostgreSQL store.

Both serve the Django sample with `serve.feed` on cards, each through its own
request-recording proxy, so the test sees which process read the upstream. A card
created, changed and deleted directly on Django's own API shows on both processes'
event feeds exactly once per change, with the same event ids: one process polls
(it holds the lease in the store), the other only serves what the store holds.
When the holder stops it hands the lease back and the other process takes over.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from runtime.store import FeedState, Store
from tests.fixtures.databases import postgres_schema
from tests.fixtures.faultproxy import FaultProxy
from tests.fixtures.runtime import (
    CONFORMANCE_GRANTS,
    CONFORMANCE_TOKENS,
    KANBAN_DRF,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import start_kanban

pytestmark = pytest.mark.postgres

FEED = {"entities": ["cards"], "interval": 1, "budget": 600}
T = TypeVar("T")
BOUND = 30.0  # seconds: generous, a poll runs every second
HEADERS = {"x-a2app-token": CONFORMANCE_TOKENS["full"]}
TYPES = ("cards.created", "cards.updated", "cards.deleted")


def _until(probe: Callable[[], T | None], what: str) -> T:
    deadline = time.monotonic() + BOUND
    while True:
        found = probe()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"not in time: {what}"
        time.sleep(0.2)


def _all_events(rt: RuntimeServer) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = "0"
    while True:
        answer = httpx.get(
            f"{rt.url}/api/_a2app/events", params={"since": cursor}, headers=HEADERS, timeout=30
        )
        assert answer.status_code == 200, answer.text
        doc = answer.json()
        found += doc["events"]
        if doc["nextCursor"] == cursor:
            return found
        cursor = doc["nextCursor"]


def _of_card(events: list[dict[str, Any]], card: str) -> list[tuple[str, str]]:
    return [(e["type"], e["id"]) for e in events if str(e["payload"].get("id")) == card]


def _list_reads(proxy: FaultProxy) -> int:
    """The upstream list requests that went through `proxy`: the polls' pages."""
    return sum(1 for s in proxy.requests if s.method == "GET" and s.path == "/api/cards/")


def test_two_processes_one_store_poll_once_and_serve_the_same_events(tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__feed=FEED)
    with contextlib.ExitStack() as stack:
        django = stack.enter_context(start_kanban())
        store_url = stack.enter_context(postgres_schema())
        proxies = [stack.enter_context(FaultProxy(django)) for _ in range(2)]
        # grants are written once, by the first start, into the store both share
        first = stack.enter_context(
            start_runtime(mapping, proxies[0], store_url=store_url, grants=CONFORMANCE_GRANTS)
        )
        second = stack.enter_context(start_runtime(mapping, proxies[1], store_url=store_url))
        runtimes = [first, second]

        store = stack.enter_context(Store.open(store_url))

        def baseline() -> FeedState | None:
            state = store.feed_state("kanban-drf", "cards")
            return state if state is not None and state.baseline_at is not None else None

        taken = _until(baseline, "the baseline")
        assert taken.holder is not None

        made = httpx.post(f"{django.api}/cards/", headers=django.headers,
                          json={"title": "Straight into Django", "list": "list_todo"})  # fmt: skip
        assert made.status_code == 201, made.text
        card = str(made.json()["id"])

        def seen_by_both(kind: str) -> list[list[tuple[str, str]]] | None:
            per = [_of_card(_all_events(rt), card) for rt in runtimes]
            return per if all(any(t == kind for t, _ in p) for p in per) else None

        _until(lambda: seen_by_both("cards.created"), "cards.created on both processes")
        changed = httpx.patch(f"{django.api}/cards/{card}/", headers=django.headers,
                              json={"title": "Renamed in Django"})  # fmt: skip
        assert changed.status_code == 200, changed.text
        _until(lambda: seen_by_both("cards.updated"), "cards.updated on both processes")
        gone = httpx.delete(f"{django.api}/cards/{card}/", headers=django.headers)
        assert gone.status_code == 204, gone.text
        _until(lambda: seen_by_both("cards.deleted"), "cards.deleted on both processes")

        time.sleep(3)  # two polls or more: nothing is reported twice
        one, two = (_of_card(_all_events(rt), card) for rt in runtimes)
        assert [t for t, _ in one] == list(TYPES), one
        assert one == two  # the same events, the same ids, on both processes
        assert len({i for _, i in one}) == 3

        # one process polled throughout: it renewed its lease at every poll, so the
        # other never read the upstream's list
        reads = [_list_reads(p) for p in proxies]
        assert sorted(reads)[0] == 0, reads
        assert sorted(reads)[1] >= 4, reads  # baseline and at least one poll per change
        holder = reads.index(max(reads))
        other = 1 - holder
        held = store.feed_state("kanban-drf", "cards")
        assert held is not None and held.holder == taken.holder

        # the holder stops and hands the lease back: the other process takes over at
        # once (not after the lease expired) and raises what changes next
        runtimes[holder].stop()
        released = store.feed_state("kanban-drf", "cards")
        # handed back (or already taken by the other): its lease would hold for 30 s more
        assert released is not None and released.holder != taken.holder
        _until(lambda: _list_reads(proxies[other]) or None, "the other process polling")
        took = store.feed_state("kanban-drf", "cards")
        assert took is not None and took.holder not in (None, taken.holder)
        after = httpx.post(f"{django.api}/cards/", headers=django.headers,
                           json={"title": "After the handover", "list": "list_todo"})  # fmt: skip
        assert after.status_code == 201, after.text
        later = str(after.json()["id"])

        def created_later() -> list[tuple[str, str]] | None:
            found = _of_card(_all_events(runtimes[other]), later)
            return found or None

        assert [t for t, _ in _until(created_later, "the card after the handover")] == [
            "cards.created"
        ]
        stopped_reads = _list_reads(proxies[holder])
        time.sleep(2)
        assert _list_reads(proxies[holder]) == stopped_reads  # a stopped process reads nothing
