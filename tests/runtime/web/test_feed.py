"""The change feed over real HTTP: cards created, changed and deleted directly on the Django
sample (its own API, not through the runtime) show as events on the runtime's feed."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx

from runtime.store import FeedState, Store
from tests.fixtures.runtime import (
    CONFORMANCE_GRANTS,
    CONFORMANCE_TOKENS,
    KANBAN_DRF,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import start_kanban

FEED = {"entities": ["cards"], "interval": 1, "budget": 600}
T = TypeVar("T")
BOUND = 30.0  # seconds: generous, a poll runs every second


def _until(probe: Callable[[], T | None]) -> T:
    deadline = time.monotonic() + BOUND
    while True:
        found = probe()
        if found is not None:
            return found
        assert time.monotonic() < deadline, "the feed did not see it in time"
        time.sleep(0.2)


def _events(url: str, cursor: str) -> tuple[list[dict[str, Any]], str]:
    doc = httpx.get(f"{url}/api/_a2app/events", params={"since": cursor}).json()
    return doc["events"], doc["nextCursor"]


def test_changes_made_in_the_app_itself_become_events(tmp_path: Path) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__feed=FEED)
    store_url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    with (
        start_kanban() as django,
        start_runtime(mapping, django, store_url=store_url, grants=CONFORMANCE_GRANTS) as rt,
    ):
        store = Store.open(store_url)
        try:

            def baseline() -> FeedState | None:
                state = store.feed_state("kanban-drf", "cards")
                return state if state is not None and state.baseline_at is not None else None

            assert _until(baseline).note == "baseline of 1 records"
        finally:
            store.close()
        events, cursor = _events(rt.url, "0")
        assert events == []  # the baseline raises nothing

        made = httpx.post(f"{django.api}/cards/", headers=django.headers,
                          json={"title": "Straight into Django", "list": "list_todo"})  # fmt: skip
        assert made.status_code == 201, made.text
        card = str(made.json()["id"])

        def next_events() -> list[dict[str, Any]] | None:
            found, _ = _events(rt.url, cursor)
            return found or None

        created = _until(next_events)
        assert [(e["type"], e["payload"]["id"]) for e in created] == [("cards.created", card)]
        assert created[0]["payload"]["record"]["title"] == "Straight into Django"
        _, cursor = _events(rt.url, cursor)

        changed = httpx.patch(f"{django.api}/cards/{card}/", headers=django.headers,
                              json={"title": "Renamed in Django"})  # fmt: skip
        assert changed.status_code == 200, changed.text
        updated = _until(next_events)
        assert [(e["type"], e["payload"]["id"]) for e in updated] == [("cards.updated", card)]
        assert updated[0]["payload"]["record"]["title"] == "Renamed in Django"
        _, cursor = _events(rt.url, cursor)

        gone = httpx.delete(f"{django.api}/cards/{card}/", headers=django.headers)
        assert gone.status_code == 204, gone.text
        deleted = _until(next_events)
        assert [(e["type"], e["payload"]) for e in deleted] == [("cards.deleted", {"id": card})]

        _, cursor = _events(rt.url, cursor)

        # a write through the runtime is in the feed at once, and the polls after it
        # do not report it again
        full = {"x-a2app-token": CONFORMANCE_TOKENS["full"]}
        through = httpx.post(
            f"{rt.url}/api/collections/cards/records",
            headers=full,
            json={"title": "Through the runtime", "list": "list_todo"},
        )
        assert through.status_code == 200, through.text
        at_once, cursor = _events(rt.url, cursor)
        assert [(e["type"], e["payload"]["id"]) for e in at_once] == [
            ("cards.created", through.json()["id"])
        ]
        time.sleep(3)  # two polls or more
        assert _events(rt.url, cursor)[0] == []

    # stopped cleanly: the poller handed its lease back, so another process takes over
    # at once rather than after the lease expired
    with Store.open(store_url) as store:
        state = store.feed_state("kanban-drf", "cards")
    assert state is not None and state.holder is None
