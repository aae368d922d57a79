"""Each tool call becomes one request of the A2App surface, under the app's base."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.gateway._plan import plan
from runtime.gateway._tools import check
from runtime.protocol import ProtocolError

ONE = {"kanban": ""}
TWO = {"kanban": "/apps/kanban", "crm": "/apps/crm"}


@pytest.mark.parametrize(
    ("tool", "args", "bases", "method", "path", "params", "body", "headers"),
    [
        ("describe", {}, ONE, "GET", "/api/_a2app/describe", {}, None, {}),
        ("describe", {"path": "/board/cards/"}, ONE, "GET", "/api/_a2app/describe/board/cards",
         {}, None, {}),
        ("describe", {"find": "card", "app": "crm"}, TWO, "GET",
         "/apps/crm/api/_a2app/describe", {"find": "card"}, None, {}),
        ("describe", {"path": "board/cards/a b"}, ONE, "GET",
         "/api/_a2app/describe/board/cards/a%20b", {}, None, {}),
        ("records", {"entity": "cards", "action": "list",
                     "query": {"filter": 'done = false', "perPage": 5, "skipTotal": True}},
         ONE, "GET", "/api/collections/cards/records",
         {"filter": "done = false", "perPage": "5", "skipTotal": "true"}, None, {}),
        ("records", {"entity": "cards", "action": "get", "id": 12}, ONE, "GET",
         "/api/collections/cards/records/12", {}, None, {}),
        ("records", {"entity": "cards", "action": "create", "data": {"title": "a"}, "key": "k"},
         ONE, "POST", "/api/collections/cards/records", {}, {"title": "a"},
         {"Idempotency-Key": "k"}),
        ("records", {"entity": "cards", "action": "update", "id": "1", "data": {}}, ONE, "PATCH",
         "/api/collections/cards/records/1", {}, {}, {}),
        ("records", {"entity": "cards", "action": "delete", "id": "1", "app": "kanban"}, TWO,
         "DELETE", "/apps/kanban/api/collections/cards/records/1", {}, None, {}),
        ("operation", {"name": "archive-board", "args": {"board": "1"}}, ONE, "POST",
         "/api/ops/archive-board", {}, {"board": "1"}, {}),
        ("operation", {"name": "count"}, ONE, "POST", "/api/ops/count", {}, {}, {}),
        ("tasks", {"action": "events", "since": "4"}, ONE, "GET", "/api/_a2app/events",
         {"since": "4"}, None, {}),
        ("tasks", {"action": "list", "data": {"status": "submitted"}}, ONE, "GET",
         "/api/_a2app/tasks", {"status": "submitted"}, None, {}),
        ("tasks", {"action": "get", "id": "tsk_1"}, ONE, "GET", "/api/_a2app/tasks/tsk_1", {},
         None, {}),
        ("tasks", {"action": "complete", "id": "tsk_1", "data": {"status": "completed"}}, ONE,
         "POST", "/api/_a2app/tasks/tsk_1/complete", {}, {"status": "completed"}, {}),
    ],
)  # fmt: skip
def test_requests(
    tool: str, args: dict[str, Any], bases: dict[str, str], method: str, path: str,
    params: dict[str, str], body: Any, headers: dict[str, str],
) -> None:  # fmt: skip
    request = plan(check(tool, args), bases)
    assert (request.method, request.path, request.params, request.body, request.headers) == (
        method, path, params, body, headers,
    )  # fmt: skip
    assert (request.operation is not None) == (tool == "operation")


@pytest.mark.parametrize(
    ("tool", "args", "bases", "field"),
    [
        ("records", {"entity": "cards", "action": "get"}, ONE, "id"),
        ("records", {"entity": "cards", "action": "create"}, ONE, "data"),
        ("records", {"entity": "cards", "action": "list", "query": {"where": "x"}}, ONE,
         "query.where"),
        ("records", {"entity": "cards", "action": "list", "query": {"sort": ["a"]}}, ONE,
         "query.sort"),
        ("records", {"entity": "cards", "action": "list"}, TWO, "app"),
        ("describe", {"app": "nope"}, ONE, "app"),
        ("tasks", {"action": "claim"}, ONE, "id"),
    ],
)  # fmt: skip
def test_refusals(tool: str, args: dict[str, Any], bases: dict[str, str], field: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        plan(check(tool, args), bases)
    assert caught.value.code == "usage"
    assert caught.value.body()["violations"][0]["field"] == field
