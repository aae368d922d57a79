"""A small in-memory REST API in the shape of the Django sample, with switchable quirks.

It answers through `httpx.MockTransport`, so unit tests can show each failure
class on an upstream that is wrong in exactly one way. The real Django sample
covers the same checks end to end in `test_kanban.py`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from typing import Any
from urllib.parse import parse_qs

import httpx

from runtime.mapping import Mapping, load_mapping_text

BASE = "http://fake.test"
TOKEN = "fake-token-0123456789"

MAPPING_YAML = """
format: 1
app: {id: fake, name: Fake}
upstream:
  baseUrl: ${FAKE_URL}
  auth: {type: header, name: Authorization, value: "Token ${FAKE_TOKEN}"}
  pagination:
    {style: page, page: page, size: page_size, items: results, total: count, next: next}
  errors: drf
  dialect: django-filter
modules:
  - {name: board}
entities:
  lists:
    module: board
    path: /api/lists/
    label: title
    fields:
      title: {type: string, required: true, max: 80}
      position: {type: number}
    filter:
      title: {"=": title, "~": title__icontains}
    sort: {param: ordering, fields: [id, title, position]}
  cards:
    module: board
    path: /api/cards/
    label: title
    fields:
      title: {type: string, required: true, max: 80}
      list: {type: ref, entity: lists, upstreamOnDelete: set-null}
      priority: {type: enum, values: [low, high]}
      done: {type: boolean}
      created: {type: datetime, readOnly: true}
    filter:
      title: {"=": title, "~": title__icontains}
      done: {"=": done}
      priority: {"=": priority}
    sort: {param: ordering, fields: [id, title, created]}
operations:
  - name: finish-card
    module: board
    entity: cards
    destructive: false
    params:
      card: {type: ref, entity: cards, required: true}
    request: {method: POST, path: "/api/cards/{card}/finish/", send: none}
  - name: archive-list
    module: board
    entity: lists
    destructive: true
    params:
      list: {type: ref, entity: lists, required: true}
    request: {method: POST, path: "/api/lists/{list}/archive/", send: none}
  - name: reset-everything
    module: board
    destructive: true
    params: {}
    request: {method: POST, path: /api/lists/reset/, send: none}
"""

# Which params each listing honours; anything else is ignored, as django-filter does.
FILTERS = {
    "lists": {"title": "exact", "title__icontains": "icontains"},
    "cards": {
        "title": "exact", "title__icontains": "icontains", "done": "bool", "priority": "exact",
    },
}  # fmt: skip
QUIRKS = frozenset({
    "ignore-done-filter", "title-optional", "priority-open", "created-writable", "cascade",
    "delete-noop", "drop-done", "ignore-ordering", "duplicate-pages", "position-required",
    "unique-titles", "created-kept", "no-delete-route", "busy-twice", "priority-fixed",
    "done-on-update", "rate-limited", "rate-limited-always", "position-not-null",
    "list-unchecked", "finish-unchecked",
})  # fmt: skip


SEED = ("To do", "Doing", "Done")


def mapping(text: str = MAPPING_YAML) -> Mapping:
    return load_mapping_text(text, env={"FAKE_URL": BASE, "FAKE_TOKEN": TOKEN})


class FakeApi:
    def __init__(self, *quirks: str) -> None:
        unknown = set(quirks) - QUIRKS
        assert not unknown, unknown
        self.quirks = set(quirks)
        self.limited = 0
        self.busy = 0  # POSTs answered so far under "busy-twice"
        self.ids = itertools.count(1)
        self.tables: dict[str, dict[str, dict[str, Any]]] = {"lists": {}, "cards": {}}
        self.requests: list[httpx.Request] = []
        self.clock = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
        lists = [self._insert("lists", {"title": t, "position": i}) for i, t in enumerate(SEED)]
        for n in range(7):
            values = {"title": f"Seed card {n}", "list": lists[n % 3]["id"], "done": n % 2 == 0}
            self._insert("cards", {**values, "priority": ("low", "high")[n % 2]})

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def _insert(self, table: str, values: dict[str, Any]) -> dict[str, Any]:
        self.clock += dt.timedelta(seconds=1)
        record = {"id": f"r{next(self.ids):03d}", **self._defaults(table), **values}
        if table == "cards" and not ("created-kept" in self.quirks and "created" in values):
            record["created"] = self.clock.isoformat().replace("+00:00", "Z")
        self.tables[table][record["id"]] = record
        return record

    @staticmethod
    def _defaults(table: str) -> dict[str, Any]:
        if table == "lists":
            return {"title": "", "position": 0}
        return {"title": "", "list": None, "priority": "low", "done": False}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.quirks & {"rate-limited", "rate-limited-always"} and (
            "title__icontains" in request.url.params
        ):
            self.limited += 1
            if "rate-limited-always" in self.quirks or self.limited <= 2:
                # A limit on one costly query, as SaaS APIs have: ask again later.
                return httpx.Response(429, headers={"Retry-After": "0"}, json={"detail": "slow"})
        if "busy-twice" in self.quirks and request.method == "POST":
            self.busy += 1
            if self.busy <= 2:  # a locked database: not carried out, try later
                return httpx.Response(503, json={"exception_message": "Service Unavailable"})
        if request.headers.get("authorization") != f"Token {TOKEN}":
            return httpx.Response(
                401, json={"detail": "Authentication credentials were not provided."}
            )
        parts = [p for p in request.url.path.split("/") if p]
        table = parts[1] if len(parts) > 1 else ""
        if table not in self.tables:
            return httpx.Response(404, json={"detail": "Not found."})
        if len(parts) == 2:
            if request.method == "GET":
                return self._list(table, request)
            return self._create(table, json.loads(request.content or b"{}"))
        record = self.tables[table].get(parts[2])
        if record is None and parts[3:] == ["finish"] and "finish-unchecked" in self.quirks:
            return httpx.Response(200, json={"finished": 0})
        if record is None:
            return httpx.Response(404, json={"detail": "Not found."})
        if len(parts) == 4 and parts[3] in ("finish", "archive"):
            record["done" if table == "cards" else "position"] = True if table == "cards" else -1
            return httpx.Response(200, json=record)
        if request.method == "GET":
            return httpx.Response(200, json=record)
        if request.method == "DELETE" and "no-delete-route" in self.quirks and table == "cards":
            return httpx.Response(404, json={"detail": "No matching path."})
        if request.method == "DELETE":
            return self._delete(table, record)
        return self._update(table, record, json.loads(request.content or b"{}"))

    def _list(self, table: str, request: httpx.Request) -> httpx.Response:
        query = {k: v[0] for k, v in parse_qs(request.url.query.decode()).items()}
        rows = list(self.tables[table].values())
        for param, kind in FILTERS[table].items():
            if param not in query or (param == "done" and "ignore-done-filter" in self.quirks):
                continue
            value, name = query[param], param.split("__")[0]
            if kind == "icontains":
                rows = [r for r in rows if value.lower() in str(r[name]).lower()]
            elif kind == "bool":
                rows = [r for r in rows if r[name] == (value == "true")]
            else:
                rows = [r for r in rows if str(r[name]) == value]
        ordering = query.get("ordering")
        if ordering and "ignore-ordering" not in self.quirks:
            key = ordering.lstrip("-")
            rows.sort(
                key=lambda r: (r[key] is not None, "" if r[key] is None else r[key]),
                reverse=ordering[0] == "-",
            )
        size, page = int(query.get("page_size", 20)), int(query.get("page", 1))
        start = (page - 1) * size
        if "duplicate-pages" in self.quirks and page > 1:
            start -= 1  # an unstable order: the first row repeats the previous page's last
        chunk = rows[start : start + size]
        more = start + size < len(rows)
        following = request.url.copy_merge_params({"page": str(page + 1)})
        body = {"count": len(rows), "next": str(following) if more else None, "results": chunk}
        return httpx.Response(200, json=body)

    def _errors(self, table: str, values: dict[str, Any], *, create: bool) -> dict[str, Any]:
        errors: dict[str, Any] = {}
        if create and not values.get("title") and "title-optional" not in self.quirks:
            errors["title"] = ["This field is required."]
        strict = "position-required" in self.quirks
        if create and table == "lists" and strict and "position" not in values:
            errors["position"] = ["This field is required."]
        priority = values.get("priority")
        closed = "priority-open" not in self.quirks
        if closed and priority is not None and priority not in ("low", "high"):
            errors["priority"] = [f'"{priority}" is not a valid choice.']
        if "unique-titles" in self.quirks and any(
            r["title"] == values.get("title") for r in self.tables[table].values()
        ):
            errors["title"] = ["A record with this title already exists."]
        if "position-not-null" in self.quirks and values.get("position", 0) is None:
            errors["position"] = ["This field may not be null."]
        ref = values.get("list")
        checked = "list-unchecked" not in self.quirks
        if checked and ref is not None and ref not in self.tables["lists"]:
            errors["list"] = ["Invalid pk - object does not exist."]
        return errors

    def _clean(self, table: str, values: dict[str, Any]) -> dict[str, Any]:
        allowed = (
            {"title", "position"} if table == "lists" else {"title", "list", "priority", "done"}
        )
        if self.quirks & {"created-writable", "created-kept"} and table == "cards":
            allowed.add("created")
        if "drop-done" in self.quirks:
            allowed.discard("done")
        return {k: v for k, v in values.items() if k in allowed}

    def _create(self, table: str, values: dict[str, Any]) -> httpx.Response:
        errors = self._errors(table, values, create=True)
        if "done-on-update" in self.quirks and table == "cards" and "done" in values:
            errors["done"] = ["This field can only be set by an update."]
        if errors:
            return httpx.Response(400, json=errors)
        return httpx.Response(201, json=self._insert(table, self._clean(table, values)))

    def _update(self, table: str, record: dict[str, Any], values: dict[str, Any]) -> httpx.Response:
        errors = self._errors(table, values, create=False)
        if "priority-fixed" in self.quirks and table == "cards" and "priority" in values:
            errors["priority"] = ["This field cannot be changed."]
        if errors:
            return httpx.Response(400, json=errors)
        record.update(self._clean(table, values))
        return httpx.Response(200, json=record)

    def _delete(self, table: str, record: dict[str, Any]) -> httpx.Response:
        if "delete-noop" in self.quirks:
            return httpx.Response(204)
        del self.tables[table][record["id"]]
        if table == "lists":
            for card in list(self.tables["cards"].values()):
                if card["list"] == record["id"]:
                    if "cascade" in self.quirks:
                        del self.tables["cards"][card["id"]]
                    else:
                        card["list"] = None
        return httpx.Response(204)

    def titles(self, table: str) -> list[str]:
        return [str(r["title"]) for r in self.tables[table].values()]
