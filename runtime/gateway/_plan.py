"""A tool call turned into the one HTTP request of the A2App surface that answers it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from ._tools import QUERY_KEYS, Call, refuse_arguments

IDEMPOTENCY_HEADER = "Idempotency-Key"
APPROVAL_HEADER = "X-A2App-Approval"
_RECORD_VERBS = {
    "list": "GET",
    "get": "GET",
    "create": "POST",
    "update": "PATCH",
    "delete": "DELETE",
}
_NEEDS_ID = ("get", "update", "delete")
_TASK_POSTS = ("claim", "progress", "complete", "cancel")


@dataclass(frozen=True, slots=True)
class Request:
    app: str
    method: str
    path: str
    params: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # the operation's name when this runs one: a 428 then asks for a confirmation
    operation: str | None = None

    def approved(self, key: str) -> Request:
        return replace(self, headers={**self.headers, APPROVAL_HEADER: key})


def _seg(value: str) -> str:
    return quote(value, safe="")


def pick_app(call: Call, bases: Mapping[str, str]) -> str:
    app = call.text("app")
    if app is None:
        if len(bases) == 1:
            return next(iter(bases))
        raise refuse_arguments(call.tool, "app", "one of: " + ", ".join(bases), None)
    if app not in bases:
        raise refuse_arguments(call.tool, "app", "one of: " + ", ".join(bases), app)
    return app


def plan(call: Call, bases: Mapping[str, str]) -> Request:
    app = pick_app(call, bases)
    base = bases[app]
    if call.tool == "describe":
        return _describe(call, app, base)
    if call.tool == "records":
        return _records(call, app, base)
    if call.tool == "operation":
        name = call.text("name") or ""
        headers = _key(call)
        body = call.object("args") or {}
        return Request(app, "POST", f"{base}/api/ops/{_seg(name)}", {}, body, headers, name)
    return _tasks(call, app, base)


def _describe(call: Call, app: str, base: str) -> Request:
    path = (call.text("path") or "").strip("/")
    where = "".join("/" + _seg(part) for part in path.split("/")) if path else ""
    find = call.text("find")
    params = {"find": find} if find is not None else {}
    return Request(app, "GET", f"{base}/api/_a2app/describe{where}", params)


def _records(call: Call, app: str, base: str) -> Request:
    action = call.args["action"]
    entity = call.text("entity") or ""
    path = f"{base}/api/collections/{_seg(entity)}/records"
    record_id = call.text("id")
    if action in _NEEDS_ID:
        if not record_id:
            raise refuse_arguments("records", "id", f"the record id ({action} names one)", None)
        path += "/" + _seg(record_id)
    params = _query(call.object("query") or {})
    body: dict[str, Any] | None = None
    if action in ("create", "update"):
        data = call.object("data")
        if data is None:
            raise refuse_arguments("records", "data", f"the fields to {action}", None)
        body = data
    return Request(app, _RECORD_VERBS[action], path, params, body, _key(call))


def _query(query: dict[str, Any]) -> dict[str, str]:
    params: dict[str, str] = {}
    for key, value in query.items():
        if key not in QUERY_KEYS:
            raise refuse_arguments(
                "records", f"query.{key}", "one of: " + ", ".join(QUERY_KEYS), value
            )
        if isinstance(value, bool):
            params[key] = "true" if value else "false"
        elif isinstance(value, (str, int, float)):
            params[key] = str(value)
        else:
            raise refuse_arguments("records", f"query.{key}", "text or a number", value)
    return params


def _tasks(call: Call, app: str, base: str) -> Request:
    action = call.args["action"]
    if action == "events":
        since = call.text("since")
        return Request(app, "GET", f"{base}/api/_a2app/events", {"since": since} if since else {})
    if action == "list":
        status = (call.object("data") or {}).get("status")
        params = {"status": status} if isinstance(status, str) else {}
        return Request(app, "GET", f"{base}/api/_a2app/tasks", params)
    task_id = call.text("id")
    if not task_id:
        raise refuse_arguments("tasks", "id", f"the task id ({action} names one)", None)
    path = f"{base}/api/_a2app/tasks/{_seg(task_id)}"
    if action == "get":
        return Request(app, "GET", path)
    assert action in _TASK_POSTS
    return Request(app, "POST", f"{path}/{action}", {}, call.object("data") or {})


def _key(call: Call) -> dict[str, str]:
    key = call.text("key")
    return {IDEMPOTENCY_HEADER: key} if key else {}
