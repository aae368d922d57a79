"""Four collections whose writes answer as real APIs do, behind a Bearer token.

- ``/notes``: a create answers ``201`` with a ``Location`` header and no body.
- ``/tags``: a create answers ``204`` with no body and no ``Location``; ``name`` is
  unique (a second tag with a taken name is refused 422).
- ``/cards``: writes take ``{"card": {...}}`` and answer ``{"card": {...}}``; reads
  answer the record bare.
- ``/events``: a create answers ``204`` with no body, no ``Location``, and no field is
  unique: nothing tells which record it made.

Every collection lists by ``page``/``per_page`` (10 by default, at most 100) in id order,
with ``Link: <…>; rel="next"`` while more follow and ``X-Total-Count``; ``?<field>=<value>``
keeps the records holding exactly that value. Records are in memory, fixed at start.
Invalid bodies are answered 422 with ``{"<field>": ["message"]}`` (DRF's shape, under
the wrapping key for wrapped writes). ``GET /`` and the OpenAPI document are public;
everything else needs ``Authorization: Bearer <token>`` (``$WRITE_SHAPES_TOKEN``).
"""

from __future__ import annotations

import copy
import datetime as dt
import hmac
import json
import os
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .model import COLLECTIONS, Collection, Field
from .spec import PER_PAGE_MAX, SPEC_PATH, document

TOKEN_VARIABLE = "WRITE_SHAPES_TOKEN"
DEFAULT_SIZE = 10
Errors = dict[str, list[str]]


class Store:
    """One collection's records by id, and the next id to give out."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        self.records: dict[int, dict[str, Any]] = {}
        for n, values in enumerate(collection.seed, start=1):
            self.records[n] = {"id": n, **copy.deepcopy(values)}
        self.next_id = len(self.records) + 1


STORES = {c.name: Store(c) for c in COLLECTIONS}


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _problem(f: Field, value: Any) -> str | None:
    """Why `value` cannot be stored in `f`, or None."""
    if value is None:
        return None if f.nullable else "This field may not be null."
    if f.type == "boolean":
        return None if isinstance(value, bool) else "Must be a valid boolean."
    if not isinstance(value, str):
        return "Not a valid string."
    if f.type == "enum" and value not in f.values:
        return f'"{value}" is not a valid choice.'
    if f.type == "date":
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            return "Date has wrong format. Use YYYY-MM-DD."
        if len(value) != 10:
            return "Date has wrong format. Use YYYY-MM-DD."
    if f.type == "datetime":
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return "Datetime has wrong format."
    if f.type == "string" and not value.strip() and f.required:
        return "This field may not be blank."
    if f.max is not None and len(value) > f.max:
        return f"Ensure this field has no more than {f.max} characters."
    return None


def _validated(
    store: Store, body: dict[str, Any], own: int | None
) -> tuple[dict[str, Any], Errors]:
    """The writable values of `body`, and the errors of each field (creates when `own` is None)."""
    errors: Errors = {}
    values: dict[str, Any] = {}
    for name, f in store.collection.fields.items():
        if f.read_only:
            continue
        if name not in body:
            if own is None and f.required:
                errors[name] = ["This field is required."]
            continue
        why = _problem(f, body[name])
        if why is not None:
            errors[name] = [why]
            continue
        value = body[name]
        if f.type == "datetime" and isinstance(value, str):
            parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            value = parsed.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if f.unique and any(r[name] == value for i, r in store.records.items() if i != own):
            errors[name] = [f"{store.collection.schema.lower()} with this {name} already exists."]
            continue
        values[name] = value
    return values, errors


def _refuse(store: Store, errors: Errors) -> Response:
    wrap = store.collection.wrap
    return JSONResponse({wrap: errors} if wrap else errors, status_code=422)


async def _body(request: Request, store: Store) -> dict[str, Any] | Response:
    try:
        doc = json.loads(await request.body() or b"null")
    except ValueError:
        return JSONResponse({"detail": "JSON parse error."}, status_code=400)
    wrap = store.collection.wrap
    if wrap is not None:
        if not isinstance(doc, dict) or not isinstance(doc.get(wrap), dict):
            return JSONResponse({wrap: ["This field is required."]}, status_code=422)
        doc = doc[wrap]
    if not isinstance(doc, dict):
        return JSONResponse({"detail": "Expected a JSON object."}, status_code=400)
    return doc


def _answer(store: Store, record: dict[str, Any], status: int = 200) -> Response:
    wrap = store.collection.wrap
    return JSONResponse({wrap: record} if wrap else record, status_code=status)


def _matches(store: Store, record: dict[str, Any], params: dict[str, str]) -> bool:
    for name, wanted in params.items():
        f = store.collection.fields.get(name)
        if f is None or not f.filter:
            continue  # not a filter: ignored, as most APIs do
        value = record.get(name)
        shown = "" if value is None else (str(value).lower() if f.type == "boolean" else value)
        if shown != wanted:
            return False
    return True


def _int(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name, "")
    return int(value) if value.isdigit() and int(value) > 0 else default


async def listing(request: Request) -> Response:
    store = STORES[request.url.path.strip("/")]
    params = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page")}
    rows = [r for _, r in sorted(store.records.items()) if _matches(store, r, params)]
    page = _int(request, "page", 1)
    size = min(_int(request, "per_page", DEFAULT_SIZE), PER_PAGE_MAX)
    headers = {"X-Total-Count": str(len(rows))}
    if page * size < len(rows):
        following = request.url.include_query_params(page=page + 1, per_page=size)
        headers["Link"] = f'<{following}>; rel="next"'
    return JSONResponse(rows[(page - 1) * size : page * size], headers=headers)


async def create(request: Request) -> Response:
    store = STORES[request.url.path.strip("/")]
    body = await _body(request, store)
    if isinstance(body, Response):
        return body
    values, errors = _validated(store, body, None)
    if errors:
        return _refuse(store, errors)
    ident = store.next_id
    store.next_id += 1
    record: dict[str, Any] = {"id": ident}
    for name, f in store.collection.fields.items():
        record[name] = _now() if f.read_only else values.get(name, _default(f))
    store.records[ident] = record
    if store.collection.create == "location":
        where = str(request.url.replace(query=None)).rstrip("/") + f"/{ident}"
        return Response(status_code=201, headers={"Location": where})
    if store.collection.create == "empty":
        return Response(status_code=204)
    return _answer(store, record, 201)


def _default(f: Field) -> Any:
    return False if f.type == "boolean" else None


def _found(request: Request) -> tuple[Store | None, dict[str, Any] | None]:
    store = STORES.get(request.path_params["collection"])
    raw = request.path_params["id"]
    if store is None or not raw.isdigit():
        return store, None
    return store, store.records.get(int(raw))


async def one(request: Request) -> Response:
    store, record = _found(request)
    if store is None or record is None:
        return JSONResponse({"detail": "Not found."}, status_code=404)
    if request.method == "GET":
        return JSONResponse(record)
    if request.method == "DELETE":
        del store.records[record["id"]]
        return Response(status_code=204)
    body = await _body(request, store)
    if isinstance(body, Response):
        return body
    values, errors = _validated(store, body, record["id"])
    if errors:
        return _refuse(store, errors)
    record.update(values)
    for name, f in store.collection.fields.items():
        if f.read_only and name.startswith("updated"):
            record[name] = _now()
    return _answer(store, record)


async def root(request: Request) -> Response:
    about = {"name": "write-shapes", "description": "records behind a Bearer token"}
    link = f'<{SPEC_PATH}>; rel="describedby"; type="application/openapi+json"'
    return JSONResponse(about, headers={"Link": link})


async def spec(request: Request) -> Response:
    return JSONResponse(document())


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True})


def _authorized(request: Request) -> bool:
    token = os.environ.get(TOKEN_VARIABLE, "")
    sent = request.headers.get("authorization", "")
    return bool(token) and hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())


class Guard:
    """Everything but the root, the document and the health check needs the token."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        open_paths = ("/", SPEC_PATH, "/health")
        guarded = scope["type"] == "http" and scope["path"] not in open_paths
        if guarded and not _authorized(Request(scope)):
            refused = JSONResponse(
                {"detail": "Authentication credentials were not provided."},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="write-shapes"'},
            )
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


routes = [Route("/", root), Route(SPEC_PATH, spec), Route("/health", health)]
for c in COLLECTIONS:
    routes.append(Route(f"/{c.name}", listing, methods=["GET"]))
    routes.append(Route(f"/{c.name}", create, methods=["POST"]))
routes.append(Route("/{collection:str}/{id:str}", one, methods=["GET", "PATCH", "DELETE"]))
app = Guard(Starlette(routes=routes))
