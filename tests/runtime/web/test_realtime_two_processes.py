"""Realtime behind a load balancer without sticky sessions: two runtime processes on one
store (an SQLite file, and PostgreSQL), the Django sample with `serve.feed` on cards.

The stream is opened on process A and its subscription posted to process B, as a
round-robin balancer would send them; a card created directly in Django reaches the
stream on A. B answers 404 for a client id no process holds, and for A's client once
its stream has ended. The set is posted first as a guest (the mapping is single-user),
then under a token (the one change of credential allowed); another token, or none
again, is refused with 403 on either process, whatever the topics, and the stream keeps
the set it had.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.store import Store
from tests.fixtures.databases import postgres_schema, sqlite_url
from tests.fixtures.runtime import (
    CONFORMANCE_GRANTS,
    CONFORMANCE_TOKENS,
    KANBAN_DRF,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import start_kanban

FEED = {"entities": ["cards"], "interval": 1, "budget": 600}
BOUND = 30.0  # seconds: generous, a poll runs every second
HEADERS = {"x-a2app-token": CONFORMANCE_TOKENS["readonly"]}
FULL = {"x-a2app-token": CONFORMANCE_TOKENS["full"]}
APP = "kanban-drf"


@contextlib.contextmanager
def _store_url(kind: str, directory: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield sqlite_url(directory)
    else:
        with postgres_schema() as url:
            yield url


def _frames(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event, data) of each SSE frame; heartbeat comments are skipped."""
    fields: dict[str, str] = {}
    for line in lines:
        if line:
            name, _, value = line.partition(":")
            if name:
                fields[name] = value
            continue
        if "event" in fields:
            yield fields["event"], json.loads(fields["data"])
        fields = {}


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_a_stream_on_one_process_takes_a_subscription_posted_to_another(
    kind: str, tmp_path: Path
) -> None:
    mapping = mapping_variant(KANBAN_DRF, tmp_path, serve__feed=FEED)
    with contextlib.ExitStack() as stack:
        django = stack.enter_context(start_kanban())
        url = stack.enter_context(_store_url(kind, tmp_path))
        a = stack.enter_context(start_runtime(mapping, django, store_url=url,
                                              grants=CONFORMANCE_GRANTS))  # fmt: skip
        b = stack.enter_context(start_runtime(mapping, django, store_url=url))
        store = stack.enter_context(Store.open(url))
        deadline = time.monotonic() + BOUND
        while (state := store.feed_state(APP, "cards")) is None or state.baseline_at is None:
            assert time.monotonic() < deadline, "no baseline in time"
            time.sleep(0.2)

        http = stack.enter_context(httpx.Client(timeout=httpx.Timeout(10, read=BOUND)))
        stream = stack.enter_context(http.stream("GET", f"{a.url}/api/realtime"))
        assert stream.status_code == 200
        frames = _frames(stream.iter_lines())
        event, data = next(frames)
        assert event == "PB_CONNECT"
        client_id = data["clientId"]

        def post(
            to: str, body: dict[str, Any], headers: dict[str, str] = HEADERS
        ) -> httpx.Response:
            return http.post(f"{to}/api/realtime", json=body, headers=headers)

        unknown = post(b.url, {"clientId": "0" * 40, "subscriptions": ["cards/*"]})
        assert (unknown.status_code, unknown.json()["code"]) == (404, "usage")
        refused = post(b.url, {"clientId": client_id, "subscriptions": ["boards/*"]})
        assert (refused.status_code, refused.json()["code"]) == (403, "insufficient_scope")
        guest = post(b.url, {"clientId": client_id, "subscriptions": ["cards/*"]}, {})
        assert (guest.status_code, guest.content) == (204, b"")
        taken = post(b.url, {"clientId": client_id, "subscriptions": ["cards/*"]})
        assert (taken.status_code, taken.content) == (204, b"")
        # the set is the read-only token's now: neither another token nor none replaces it
        # (had either emptied it, the card below would not arrive); that is answered
        # before the topics are looked at, so topics refused for other reasons (boards is
        # not watched, the other is malformed) get the same answer
        for to, headers, topics in (
            (b.url, FULL, []), (a.url, {}, []), (b.url, FULL, ["boards/*"]),
            (a.url, {}, ["cards/1/x"]),
        ):  # fmt: skip
            other = post(to, {"clientId": client_id, "subscriptions": topics}, headers)
            assert (other.status_code, other.json()["code"], other.json()["message"]) == (
                403, "realtime_auth_mismatch",
                "The current and the previous request authorization don't match.",
            )  # fmt: skip
        # the token that wrote the set still meets the topic checks
        unwatched = post(a.url, {"clientId": client_id, "subscriptions": ["lists/*"]})
        assert (unwatched.status_code, unwatched.json()["unwatched"]) == (400, ["lists"])

        made = httpx.post(f"{django.api}/cards/", headers=django.headers,
                          json={"title": "Seen across processes", "list": "list_todo"})  # fmt: skip
        assert made.status_code == 201, made.text
        card = str(made.json()["id"])
        for event, data in frames:  # the read timeout bounds the wait
            if event == "cards/*" and str(data["record"]["id"]) == card:
                assert data["action"] == "create"
                assert data["record"]["title"] == "Seen across processes"
                break
        else:
            pytest.fail("the stream on A ended without the card")
        stream.close()

        # the stream ended on A: B no longer knows the client
        deadline = time.monotonic() + BOUND
        while post(b.url, {"clientId": client_id, "subscriptions": []}).status_code != 404:
            assert time.monotonic() < deadline, "the ended stream is still known"
            time.sleep(0.2)
