"""Recorded payloads and small in-memory upstreams, for unit tests without a network.

Each fake answers like the stack it stands for (the shapes are the ones recorded
in `tests/fixtures` servers and `shared/reference/foreign-servers.md`) and
records every request it receives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

PAYLOADS = Path(__file__).parent / "payloads"
BASE = "http://upstream.test"


def payload(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text())


def json_response(body: Any, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers)


class Fake:
    """A MockTransport around a handler, keeping the log of (method, path?query)."""

    def __init__(self, handler: Callable[[httpx.Request], httpx.Response]) -> None:
        self.log: list[tuple[str, str]] = []
        self._handler = handler
        self.transport = httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        query = request.url.query.decode()
        self.log.append((request.method, request.url.path + (f"?{query}" if query else "")))
        return self._handler(request)

    def methods(self) -> set[str]:
        return {m for m, _ in self.log}


def _page(rows: Sequence[Mapping[str, Any]], page: int, size: int) -> list[Mapping[str, Any]]:
    return list(rows[(page - 1) * size : page * size])


def _filtered(
    rows: Sequence[Mapping[str, Any]], params: httpx.QueryParams, skip: set[str]
) -> list[Mapping[str, Any]]:
    out = list(rows)
    for key, value in params.items():
        if key not in skip:
            out = [r for r in out if str(r.get(key)) == value]
    return out


def rails(tables: Mapping[str, list[dict[str, Any]]]) -> Fake:
    """Rails + kaminari: bare arrays, ``page``/``per_page``, X-Total-Count; no spec, no OPTIONS."""
    return Fake(rails_handler(tables))


def html_site(tables: Mapping[str, list[dict[str, Any]]], lists_by: str = "suffix") -> Fake:
    """A Rails-like app with an HTML home page linking its collections, every page HTML
    (406 to a JSON Accept) and JSON only at ``.json``; with ``lists_by="accept"`` its
    listings also answer JSON to Accept, its records still only at ``.json``."""
    data = rails_handler(tables)
    links = "".join(f'<a href="/{name}">{name.title()}</a>' for name in tables)
    home = f'<html><body><a href="/up">Status</a>{links}</body></html>'

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        wants_json = "application/json" in request.headers.get("accept", "")
        if path == "/":
            return httpx.Response(200, html=home)
        if path.endswith(".json"):
            plain = request.url.copy_with(path=path.removesuffix(".json"))
            return data(httpx.Request(request.method, plain, headers=request.headers))
        listing = len([p for p in path.split("/") if p]) == 1
        if listing and lists_by == "accept" and wants_json:
            return data(request)
        if path.strip("/").split("/")[0] not in tables:
            return httpx.Response(404, text="")
        return httpx.Response(406 if wants_json else 200, html="<html><body></body></html>")

    return Fake(handle)


def rails_handler(
    tables: Mapping[str, list[dict[str, Any]]],
) -> Callable[[httpx.Request], httpx.Response]:
    """What `rails` answers, as a plain handler."""

    def handle(request: httpx.Request) -> httpx.Response:
        parts = [p for p in request.url.path.split("/") if p]
        if request.method != "GET" or not parts or parts[0].removesuffix(".json") not in tables:
            return httpx.Response(404, text="")
        rows = tables[parts[0].removesuffix(".json")]
        if len(parts) == 2:
            found = [r for r in rows if str(r["id"]) == parts[1]]
            return json_response(found[0]) if found else httpx.Response(404, text="")
        params = request.url.params
        rows = _filtered(rows, params, {"page", "per_page"})
        size = int(params.get("per_page", "20"))
        body = _page(rows, int(params.get("page", "1")), size)
        return json_response(body, **{"X-Total-Count": str(len(rows)), "X-Runtime": "0.01"})

    return handle


def json_server(tables: Mapping[str, list[dict[str, Any]]]) -> Fake:
    """json-server 0.17: everything unless ``_page`` is asked; then Link and X-Total-Count.
    Unknown parameters are field filters, as json-server reads them."""

    def handle(request: httpx.Request) -> httpx.Response:
        parts = [p for p in request.url.path.split("/") if p]
        if request.method == "OPTIONS":
            return httpx.Response(204, headers={"Access-Control-Allow-Methods": "GET,POST"})
        if not parts:
            return httpx.Response(
                200, text="<!doctype html><html></html>", headers={"content-type": "text/html"}
            )
        if parts == ["db"]:
            return json_response(dict(tables))
        if parts[0] not in tables:
            return json_response({}, 404)
        rows = tables[parts[0]]
        if len(parts) == 2:
            found = [r for r in rows if str(r["id"]) == parts[1]]
            return json_response(found[0] if found else {}, 200 if found else 404)
        params = request.url.params
        rows = _filtered(rows, params, {"_page", "_limit"})
        if "_page" not in params:
            return json_response(rows)
        page, size = int(params["_page"]), int(params.get("_limit", "10"))
        body = _page(rows, page, size)
        headers = {"X-Total-Count": str(len(rows))}
        if page * size < len(rows):
            headers["Link"] = f'<{BASE}/{parts[0]}?_page={page + 1}&_limit={size}>; rel="next"'
        return json_response(body, **headers)

    return Fake(handle)


def jsonapi(
    tables: Mapping[str, list[dict[str, Any]]], rels: Mapping[str, Mapping[str, str]]
) -> Fake:
    """A JSON:API server: ``{data: [{type, id, attributes, relationships}], links}``.

    `rels` maps a type to {relationship name: target type}; the related id is
    the record's ``<name>_id`` value.
    """

    def resource(kind: str, row: Mapping[str, Any]) -> dict[str, Any]:
        links = rels.get(kind, {})
        attributes = {k: v for k, v in row.items() if k != "id" and not k.endswith("_id")}
        relationships = {
            name: {
                "data": {"type": target, "id": str(row[f"{name}_id"])}
                if row.get(f"{name}_id") is not None
                else None
            }
            for name, target in links.items()
        }
        doc = {"type": kind, "id": str(row["id"]), "attributes": attributes}
        if relationships:
            doc["relationships"] = relationships
        return doc

    def handle(request: httpx.Request) -> httpx.Response:
        parts = [p for p in request.url.path.split("/") if p]
        ctype = {"content-type": "application/vnd.api+json"}
        if not parts:
            links = {name: f"{BASE}/{name}" for name in tables}
            return httpx.Response(200, json={"links": links}, headers=ctype)
        if request.method != "GET" or parts[0] not in tables:
            return httpx.Response(404, json={"errors": [{"status": "404"}]}, headers=ctype)
        rows = tables[parts[0]]
        if len(parts) == 2:
            found = [r for r in rows if str(r["id"]) == parts[1]]
            if not found:
                return httpx.Response(404, json={"errors": [{"status": "404"}]}, headers=ctype)
            return httpx.Response(200, json={"data": resource(parts[0], found[0])}, headers=ctype)
        data = [resource(parts[0], r) for r in rows]
        return httpx.Response(200, json={"data": data, "links": {"next": None}}, headers=ctype)

    return Fake(handle)


def drf_spec_only_server(spec: Any) -> Fake:
    """Only the spec answers (everything else is refused): the sample without credentials."""

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/schema/":
            return json_response(spec)
        return json_response(
            {"detail": "Authentication credentials were not provided."},
            401,
            **{"WWW-Authenticate": "Token"},
        )

    return Fake(handle)


KANBAN_ROWS: dict[str, list[dict[str, Any]]] = {
    "boards": [
        {"id": 1, "name": "Main", "archived": False, "created_at": "2026-01-01T10:00:00Z"},
        {"id": 2, "name": "Old", "archived": True, "created_at": "2025-06-01T08:30:00Z"},
    ],
    "lists": [
        {"id": 1, "board_id": 1, "title": "To Do", "position": 1},
        {"id": 2, "board_id": 1, "title": "Doing", "position": 2},
        {"id": 3, "board_id": 2, "title": "Done", "position": 3},
    ],
    "cards": [
        {
            "id": i,
            "list_id": 1 + i % 3,
            "title": f"Card {i}",
            "priority": ("low", "medium", "high")[i % 3],
            "done": i % 2 == 0,
            "due_date": f"2026-0{1 + i % 9}-1{i % 9}" if i % 4 else None,
            "created_at": f"2026-01-{10 + i:02d}T09:00:00Z",
        }
        for i in range(1, 13)
    ],
}
