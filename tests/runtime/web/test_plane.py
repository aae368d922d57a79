"""The app→agent plane over HTTP: every task rule and error code of §14.2, the sweep on a
moved clock, the events cursor (§14.1) and the context with its owner-only write (§8)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import pytest

from runtime.mapping import load_mapping_text
from runtime.service import RuntimeState, trigger
from runtime.store import Store
from runtime.upstream import UpstreamClient
from runtime.web import create_app

ROOT = Path(__file__).resolve().parents[3]
KANBAN_TEXT = (ROOT / "mappings" / "conformance-kanban.yaml").read_text()
UI = "http://app.example:3000"
FULL = {"x-a2app-token": "a2app_plane_full"}
OTHER = {"x-a2app-token": "a2app_plane_other"}
RO = {"x-a2app-token": "a2app_plane_ro"}
TASKS = "/api/_a2app/tasks"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Served:
    client: TestClient
    state: RuntimeState
    clock: Clock

    def task(self, capability: str = "summarize", payload: Any = None) -> str:
        raised = trigger(self.state, "card.due_soon", payload or {"id": "c1"}, capability)
        assert raised.task is not None
        return raised.task.id

    def post(self, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        return self.client.post(path, json=body or {}, headers=FULL if headers is None else headers)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setenv("KANBAN_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    text = KANBAN_TEXT.replace("allowedOrigins: []", f"allowedOrigins: [{UI!r}]")
    assert UI in text
    mapping = load_mapping_text(text)
    clock = Clock()
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}", clock=clock)
    store.create_grant(id="cred_full", agent_name="runner", scopes=["*"], token="a2app_plane_full")
    store.create_grant(id="cred_other", agent_name="other", scopes=["*"], token="a2app_plane_other")
    store.create_grant(
        id="cred_ro", agent_name="ro", scopes=["data:cards:read"], token="a2app_plane_ro"
    )
    state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream))
    try:
        with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
            yield Served(client, state, clock)
    finally:
        store.close()


def _refused(answer: Any) -> tuple[int, str]:
    body = answer.json()
    assert body["a2app"] is True and body["ok"] is False, body
    return answer.status_code, body["code"]


# ------------------------------------------------------------------ the lifecycle


def test_a_task_goes_from_submitted_to_completed(served: Served) -> None:
    task_id = served.task()
    assert task_id.startswith("tsk_") and len(task_id) == 20
    listed = served.client.get(TASKS, params={"status": "submitted"}).json()
    assert listed["pollAfterMs"] == 2000 and [t["id"] for t in listed["tasks"]] == [task_id]
    fresh = listed["tasks"][0]
    assert fresh["request"] == {"capability": "summarize", "payload": {"id": "c1"}}
    assert (fresh["status"], fresh["claim"], fresh["progress"]) == (
        "submitted", None, {"step": None, "percent": 0},
    )  # fmt: skip
    assert fresh["event"].startswith("evt_") and fresh["createdAt"] == "2030-01-02T03:04:05.000Z"

    claimed = served.post(f"{TASKS}/{task_id}/claim", {"agent": "cred_full"}).json()
    assert claimed["status"] == "working"
    assert claimed["claim"] == {
        "credentialId": "cred_full", "principal": "owner", "claimedAt": "2030-01-02T03:04:05.000Z"
    }  # fmt: skip
    step = served.post(f"{TASKS}/{task_id}/progress", {"step": "reading", "percent": 40}).json()
    assert step["progress"] == {"step": "reading", "percent": 40}
    done = served.post(
        f"{TASKS}/{task_id}/complete", {"status": "completed", "result": {"summary": "1 card"}}
    ).json()
    assert (done["status"], done["result"]) == ("completed", {"summary": "1 card"})
    assert served.client.get(f"{TASKS}/{task_id}").json()["status"] == "completed"
    assert served.client.get(TASKS, params={"status": "submitted"}).json()["tasks"] == []


def test_a_claim_by_agent_name_and_a_failed_completion(served: Served) -> None:
    task_id = served.task()
    assert served.post(f"{TASKS}/{task_id}/claim", {"agent": "runner"}).status_code == 200
    failed = served.post(f"{TASKS}/{task_id}/complete", {"status": "failed"}).json()
    assert (failed["status"], failed["reason"]) == ("failed", "unspecified")


def test_ask_sets_input_required_and_a_later_progress_resumes(served: Served) -> None:
    task_id = served.task()
    served.post(f"{TASKS}/{task_id}/claim")
    asked = served.post(f"{TASKS}/{task_id}/progress", {"step": "which list?", "ask": {"q": 1}})
    assert asked.json()["status"] == "input-required" and "ask" not in asked.json()
    resumed = served.post(f"{TASKS}/{task_id}/progress", {"step": "going on"}).json()
    assert (resumed["status"], resumed["progress"]["step"]) == ("working", "going on")


def test_a_repeated_occurrence_returns_the_finished_task(served: Served) -> None:
    task_id = served.task(payload={"id": "c9"})
    served.post(f"{TASKS}/{task_id}/cancel")
    again = trigger(served.state, "card.due_soon", {"id": "c9"}, "summarize")
    assert not again.new and again.task is not None and again.task.id == task_id
    assert again.task.status == "canceled"


# ------------------------------------------------------------------ the sweep


def test_a_stale_claim_is_redelivered_and_a_heartbeat_keeps_it(served: Served) -> None:
    task_id = served.task()
    served.post(f"{TASKS}/{task_id}/claim")
    served.clock.advance(50)
    # a heartbeat: `step` alone, no percent, keeps the last percent
    beat = served.post(f"{TASKS}/{task_id}/progress", {"step": "still here"})
    assert beat.status_code == 200 and beat.json()["progress"]["percent"] == 0
    served.clock.advance(50)
    assert served.client.get(f"{TASKS}/{task_id}").json()["status"] == "working"
    served.clock.advance(11)
    back = served.client.get(f"{TASKS}/{task_id}").json()
    assert (back["status"], back["claim"]) == ("submitted", None)
    # the agent that lost it is told so on its next heartbeat
    lost = served.post(f"{TASKS}/{task_id}/progress", {"step": "late"})
    assert _refused(lost) == (409, "task_not_claimable")


def test_the_fifth_stale_claim_fails_the_task(served: Served) -> None:
    task_id = served.task()
    for _ in range(5):
        assert served.post(f"{TASKS}/{task_id}/claim").status_code == 200
        served.clock.advance(61)
    final = served.client.get(f"{TASKS}/{task_id}").json()
    assert (final["status"], final["reason"]) == ("failed", "redelivery_exhausted")


# ------------------------------------------------------------------ every refusal


def test_task_not_found_before_the_verb_and_the_action(served: Served) -> None:
    assert _refused(served.client.get(f"{TASKS}/tsk_nope")) == (404, "task_not_found")
    assert _refused(served.post(f"{TASKS}/tsk_nope/claim", {"agent": "cred_full"})) == (
        404, "task_not_found",
    )  # fmt: skip
    assert _refused(served.post(f"{TASKS}/tsk_nope/bogus")) == (404, "task_not_found")


def test_task_not_claimable(served: Served) -> None:
    task_id = served.task()
    for action in ("progress", "complete"):
        body = {"status": "completed"} if action == "complete" else {"step": "x"}
        assert _refused(served.post(f"{TASKS}/{task_id}/{action}", body)) == (
            409, "task_not_claimable",
        )  # fmt: skip
    served.post(f"{TASKS}/{task_id}/claim")
    assert _refused(served.post(f"{TASKS}/{task_id}/claim")) == (409, "task_not_claimable")
    served.post(f"{TASKS}/{task_id}/complete", {"status": "completed"})
    assert _refused(served.post(f"{TASKS}/{task_id}/cancel")) == (409, "task_not_claimable")


def test_task_canceled(served: Served) -> None:
    task_id = served.task()
    served.post(f"{TASKS}/{task_id}/claim")
    assert served.post(f"{TASKS}/{task_id}/cancel").json()["status"] == "canceled"
    assert _refused(served.post(f"{TASKS}/{task_id}/progress", {"step": "x"})) == (
        409, "task_canceled",
    )  # fmt: skip
    assert _refused(served.post(f"{TASKS}/{task_id}/complete", {"status": "completed"})) == (
        409, "task_canceled",
    )  # fmt: skip
    assert _refused(served.post(f"{TASKS}/{task_id}/cancel")) == (409, "task_not_claimable")


def test_principal_mismatch_names_both(served: Served) -> None:
    task_id = served.task()
    answer = served.post(f"{TASKS}/{task_id}/claim", {"agent": "cred_full"}, OTHER)
    assert _refused(answer) == (403, "principal_mismatch")
    assert (answer.json()["requested"], answer.json()["actual"]) == ("cred_full", "cred_other")
    assert served.client.get(f"{TASKS}/{task_id}").json()["status"] == "submitted"


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", TASKS, {}, 400),  # no task id
        ("POST", "{task}/complete", {"status": "done"}, 400),
        ("POST", "{task}/complete", {"status": "input-required"}, 400),
        ("POST", "{task}/progress", {"percent": "half"}, 400),
        ("POST", "{task}/claim", {"agent": 7}, 400),
        ("POST", "{task}", {}, 404),  # no action
        ("POST", "{task}/finish", {}, 404),  # unknown action
        ("GET", "{task}/claim", None, 405),
        ("DELETE", "{task}", None, 405),
        ("PUT", "/api/_a2app/events", None, 405),
    ],
)
def test_usage(served: Served, method: str, path: str, body: Any, status: int) -> None:
    task_id = served.task()
    if "complete" in path or "progress" in path:
        served.post(f"{TASKS}/{task_id}/claim")
    url = path.replace("{task}", f"{TASKS}/{task_id}")
    answer = served.client.request(method, url, json=body, headers=FULL)
    assert _refused(answer) == (status, "usage")
    assert served.client.get(f"{TASKS}/{task_id}").json()["status"] in ("submitted", "working")


def test_an_unknown_status_filter_is_refused_not_answered_empty(served: Served) -> None:
    assert _refused(served.client.get(TASKS, params={"status": "done"})) == (400, "usage")
    assert _refused(served.client.get(TASKS, params={"state": "working"})) == (
        400, "invalid_query",
    )  # fmt: skip


def test_reads_are_anonymous_but_every_change_needs_a_credential(served: Served) -> None:
    task_id = served.task()
    assert served.client.get(f"{TASKS}/{task_id}").status_code == 200
    answer = served.client.post(f"{TASKS}/{task_id}/claim", json={})
    assert _refused(answer) == (401, "agent_token_required")
    # any scopes will do: a read-only grant may claim
    assert served.post(f"{TASKS}/{task_id}/claim", {}, RO).json()["claim"]["credentialId"] == (
        "cred_ro"
    )


def test_a_foreign_origin_is_refused_before_the_task_lookup(served: Served) -> None:
    answer = served.client.get(f"{TASKS}/tsk_nope", headers={"origin": "http://evil.example"})
    assert _refused(answer) == (403, "forbidden_origin")


# ------------------------------------------------------------------ events


def test_events_page_by_cursor(served: Served) -> None:
    empty = served.client.get("/api/_a2app/events").json()
    assert (empty["events"], empty["nextCursor"], empty["pollAfterMs"]) == ([], "0", 3000)
    for n in range(3):
        trigger(served.state, "card.due_soon", {"id": f"c{n}"})
    first = served.client.get("/api/_a2app/events").json()
    assert [e["payload"]["id"] for e in first["events"]] == ["c0", "c1", "c2"]
    event = first["events"][0]
    assert event["id"].startswith("evt_") and len(event["id"]) == 20
    assert (event["type"], event["app"]) == ("card.due_soon", "conformance_kanban")
    after = served.client.get("/api/_a2app/events", params={"since": first["nextCursor"]}).json()
    assert after["events"] == [] and after["nextCursor"] == first["nextCursor"]
    assert _refused(served.client.get("/api/_a2app/events", params={"since": "x"})) == (
        400, "usage",
    )  # fmt: skip


def test_an_event_carrying_records_is_shown_only_to_a_reader_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trigger's (and the feed's) event carries records of its entity: a credential that
    may not read that entity does not see it; an event of no entity is everyone's."""
    monkeypatch.setenv("KANBAN_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    declared = (
        "serve:\n  triggers:\n    - {type: card.due_soon, entity: cards, filter: done = false}\n"
    )
    text = KANBAN_TEXT.replace("serve:\n", declared, 1)
    assert "card.due_soon" in text
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    store.create_grant(id="cred_full", agent_name="runner", scopes=["*"], token="a2app_plane_full")
    store.create_grant(
        id="cred_lists", agent_name="lists", scopes=["data:lists:read"], token="a2app_plane_lists"
    )
    mapping = load_mapping_text(text)
    state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream))
    try:
        trigger(state, "card.due_soon", {"id": "c1"})
        trigger(state, "invoice.paid", {"id": "in_1"})
        with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
            full = client.get("/api/_a2app/events", headers=FULL).json()
            lists = client.get(
                "/api/_a2app/events", headers={"x-a2app-token": "a2app_plane_lists"}
            ).json()
    finally:
        store.close()
    assert [e["type"] for e in full["events"]] == ["card.due_soon", "invoice.paid"]
    assert [e["type"] for e in lists["events"]] == ["invoice.paid"]
    assert lists["nextCursor"] == full["nextCursor"]  # the hidden event is passed all the same


def test_a_task_of_an_entitys_event_is_shown_only_to_a_reader_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task raised with a trigger's event carries that entity's records, as its event
    does: left out of the listing for a credential that may not read the entity, refused
    by id (read or acted on); a task of no entity's event is everyone's."""
    monkeypatch.setenv("KANBAN_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    declared = (
        "serve:\n  triggers:\n    - {type: card.due_soon, entity: cards, filter: done = false,"
        " capability: summarize}\n"
    )
    text = KANBAN_TEXT.replace("serve:\n", declared, 1)
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    store.create_grant(id="cred_full", agent_name="runner", scopes=["*"], token="a2app_plane_full")
    lists = {"x-a2app-token": "a2app_plane_lists"}
    store.create_grant(
        id="cred_lists", agent_name="lists", scopes=["data:lists:read"], token="a2app_plane_lists"
    )
    mapping = load_mapping_text(text)
    state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream))
    try:
        card = trigger(state, "card.due_soon", {"id": "c1", "title": "Secret"}, "summarize").task
        other = trigger(state, "invoice.paid", {"id": "in_1"}, "file").task
        assert card is not None and other is not None
        with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
            full = client.get(TASKS, headers=FULL).json()["tasks"]
            shown = client.get(TASKS, headers=lists).json()["tasks"]
            by_id = client.get(f"{TASKS}/{card.id}", headers=lists)
            claim = client.post(f"{TASKS}/{card.id}/claim", json={}, headers=lists)
            own = client.get(f"{TASKS}/{other.id}", headers=lists)
            mine = client.get(f"{TASKS}/{card.id}", headers=FULL)
    finally:
        store.close()
    assert [t["id"] for t in full] == [card.id, other.id]
    assert [t["id"] for t in shown] == [other.id]
    for refused in (by_id, claim):
        assert _refused(refused) == (403, "insufficient_scope")
        assert refused.json()["required"] == "data:cards:read" and "Secret" not in refused.text
    assert own.status_code == 200 and mine.status_code == 200
    assert mine.json()["status"] == "submitted"  # the refused claim changed nothing


# ------------------------------------------------------------------ context


def test_context_defaults_and_is_set_by_the_ui_or_the_owner(served: Served) -> None:
    context = "/api/_a2app/context"
    assert served.client.get(context).json() == {"a2app": True, "view": None, "selected": []}
    doc = {"view": "board", "selected": [{"entity": "cards", "id": "card_seed"}]}
    assert served.client.put(context, json=doc, headers={"origin": UI}).status_code == 200
    assert served.client.get(context, headers=RO).json() == {"a2app": True, **doc}
    assert served.client.put(context, json={"view": None}, headers=FULL).json()["view"] is None
    assert _refused(served.client.put(context, json=doc)) == (401, "agent_token_required")
    assert _refused(served.client.put(context, json=doc, headers=RO)) == (
        403, "insufficient_scope",
    )  # fmt: skip
    evil = {"origin": "http://evil.example"}
    assert _refused(served.client.put(context, json=doc, headers=evil)) == (
        403, "forbidden_origin",
    )  # fmt: skip
    nope = {"selected": [{"entity": "nope", "id": "1"}]}
    assert _refused(served.client.put(context, json=nope, headers=FULL)) == (
        404, "unknown_entity",
    )  # fmt: skip
    assert _refused(served.client.put(context, json={"x": 1}, headers=FULL)) == (400, "usage")
    assert _refused(served.client.delete(context, headers=FULL)) == (405, "usage")
    assert served.client.get(context).json()["view"] is None


def test_a_context_put_reports_every_problem_at_once(served: Served) -> None:
    context = "/api/_a2app/context"
    bad = {
        "view": 3,
        "extra": True,
        "selected": [{"entity": "nope", "id": "1"}, {"entity": "cards"}, "x"],
    }
    answer = served.client.put(context, json=bad, headers=FULL)
    assert (answer.status_code, answer.json()["code"]) == (400, "usage")
    found = [(v["code"], v["field"]) for v in answer.json()["violations"]]
    assert found == [
        ("usage", "extra"), ("usage", "view"), ("unknown_entity", "selected.0.entity"),
        ("usage", "selected.1"), ("usage", "selected.2"),
    ]  # fmt: skip
    two = {"selected": [{"entity": "nope", "id": "1"}, {"entity": "gone", "id": "2"}]}
    answer = served.client.put(context, json=two, headers=FULL)
    assert (answer.status_code, answer.json()["code"]) == (404, "unknown_entity")
    assert len(answer.json()["violations"]) == 2
    assert served.client.get(context).json()["view"] is None  # nothing half-applied
