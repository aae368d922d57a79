"""`/api/realtime` over HTTP: the stream's headers and first frame, and the subscription's
answers: 204, every validation problem in one 400, 404 for an unknown client, 403 for
topics the credential cannot read, 400 for a bad filter."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import pytest

from runtime.mapping import load_mapping_text
from runtime.service import RuntimeState
from runtime.store import Store
from runtime.upstream import UpstreamClient
from runtime.web import create_app

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
FULL = {"x-a2app-token": "a2app_rt_full"}
CARDS_ONLY = {"x-a2app-token": "a2app_rt_cards"}
PATH = "/api/realtime"


@dataclass
class Served:
    client: TestClient
    state: RuntimeState

    def subscribe(self, body: Any, headers: dict[str, str] | None = None) -> Any:
        return self.client.post(PATH, json=body, headers=FULL if headers is None else headers)

    def client_id(self) -> str:
        return self.state.realtime.connect().id


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setenv("KANBAN_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    # the feed watches cards only; its one poll (of an upstream that is not there) fails
    feed = "  feed: {entities: [cards], interval: 3600}\n"
    text = TEXT.replace("  authMode: none\n", "  authMode: multi-user\n" + feed)
    assert feed in text
    mapping = load_mapping_text(text)
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    store.create_grant(id="cred_full", agent_name="rt", scopes=["*"], token="a2app_rt_full")
    store.create_grant(
        id="cred_cards", agent_name="c", scopes=["data:cards:read"], token="a2app_rt_cards"
    )
    state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream))
    try:
        with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
            yield Served(client, state)
    finally:
        store.close()


def _refused(answer: Any) -> tuple[int, str, dict[str, Any]]:
    body = answer.json()
    assert body["a2app"] is True and body["ok"] is False, body
    return answer.status_code, body["code"], body


def test_the_stream_opens_with_pb_connect(served: Served) -> None:
    hub = served.state.realtime
    hub.heartbeat, hub.max_age = 0.05, 0.12  # so the stream ends and the client reads it whole
    answer = served.client.get(PATH)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["x-accel-buffering"] == "no"
    first, *rest = answer.text.split("\n\n")
    lines = first.split("\n")
    client_id = lines[0].removeprefix("id:")
    assert len(client_id) == 40
    assert lines[1:] == ["event:PB_CONNECT", "data:" + json.dumps({"clientId": client_id})
                         .replace(" ", "")]  # fmt: skip
    assert ":" in rest  # a heartbeat comment
    assert client_id not in hub.clients  # the stream ended: the client is forgotten


def test_a_subscription_is_accepted_with_204(served: Served) -> None:
    client_id = served.client_id()
    topics = [
        "cards/*",
        "cards/c1",
        "cards/*?options=" + quote('{"query":{"filter":"done = false","fields":"id,title"}}'),
    ]
    answer = served.subscribe({"clientId": client_id, "subscriptions": topics})
    assert (answer.status_code, answer.content) == (204, b"")
    assert [t.raw for t in served.state.realtime.clients[client_id].topics] == topics
    # the set is replaced whole: an empty list unsubscribes from everything
    assert served.subscribe({"clientId": client_id, "subscriptions": []}).status_code == 204
    assert served.state.realtime.clients[client_id].topics == ()


def test_every_violation_is_refused_at_once(served: Served) -> None:
    topics = ["cards/*", "", "x" * 2501, "cards/*\nevent:forged", 7]
    status, code, body = _refused(served.subscribe({"clientId": "", "subscriptions": topics}))
    assert (status, code) == (400, "usage")
    assert [(v["field"], v["code"]) for v in body["violations"]] == [
        ("clientId", "invalid_string"),
        ("subscriptions.1", "invalid_string"),
        ("subscriptions.2", "invalid_string"),
        ("subscriptions.3", "invalid_string"),
        ("subscriptions.4", "invalid_string"),
    ]
    too_many = {"clientId": "x" * 256, "subscriptions": ["cards/*"] * 1001}
    status, _, body = _refused(served.subscribe(too_many))
    assert status == 400
    assert [(v["field"], v["code"]) for v in body["violations"]] == [
        ("clientId", "invalid_string"), ("subscriptions", "usage"),
    ]  # fmt: skip
    assert _refused(served.client.post(PATH, content=b"[", headers=FULL))[:2] == (
        400, "invalid_json",
    )  # fmt: skip


def test_an_unknown_client_is_404(served: Served) -> None:
    answer = served.subscribe({"clientId": "nobody", "subscriptions": ["cards/*"]})
    status, code, body = _refused(answer)
    assert (status, code, body["message"]) == (404, "usage", "Missing or invalid client id.")


def test_topics_the_credential_cannot_read_are_refused(served: Served) -> None:
    client_id = served.client_id()
    topics = ["cards/*", "lists/*", "lists/l1"]
    answer = served.subscribe({"clientId": client_id, "subscriptions": topics}, CARDS_ONLY)
    status, code, body = _refused(answer)
    assert (status, code) == (403, "insufficient_scope")
    assert (body["required"], body["topics"]) == (["data:lists:read"], ["lists/*", "lists/l1"])
    assert served.state.realtime.clients[client_id].topics == ()  # nothing half-applied
    ok = {"clientId": client_id, "subscriptions": ["cards/*"]}
    assert served.subscribe(ok, CARDS_ONLY).status_code == 204
    # no credential where the mapping asks for one
    assert _refused(served.subscribe(ok, {}))[:2] == (401, "agent_token_required")


def test_a_bad_filter_or_entity_is_refused_at_subscribe(served: Served) -> None:
    client_id = served.client_id()
    bad = "cards/*?options=" + quote('{"query":{"filter":"nosuch = 1"}}')
    answer = served.subscribe({"clientId": client_id, "subscriptions": [bad]})
    assert _refused(answer)[:2] == (400, "invalid_filter")
    answer = served.subscribe({"clientId": client_id, "subscriptions": ["nope/*"]})
    assert _refused(answer)[:2] == (404, "unknown_entity")


def test_a_topic_the_feed_does_not_watch_is_refused(served: Served) -> None:
    client_id = served.client_id()
    answer = served.subscribe({"clientId": client_id, "subscriptions": ["cards/*", "lists/*"]})
    status, code, body = _refused(answer)
    assert (status, code, body["unwatched"]) == (400, "usage", ["lists"])
    assert served.state.realtime.clients[client_id].topics == ()


def test_other_verbs_are_405(served: Served) -> None:
    assert _refused(served.client.delete(PATH, headers=FULL))[:2] == (405, "usage")
