"""A small mapping with every record shape the upstream module handles, and a recorder."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from runtime.mapping import Upstream, load_mapping_text
from runtime.upstream import UpstreamClient

BASE = "http://api.test/v1"
SECRET = "s3cret-token-0123456789"
PASSWORD = "pa55word-very-secret"

MAPPING_YAML = """
format: 1
app: {id: unit, name: Unit}
upstream:
  baseUrl: ${U}
  auth: {type: header, name: Authorization, value: "Token ${TOKEN}"}
  pagination:
    style: page
    page: page
    size: page_size
    items: results
    total: count
    next: next
    maxSize: 50
  errors: drf
  dialect: django-filter
modules:
  - {name: board}
entities:
  lists:
    module: board
    path: /api/lists/
    id: {source: id, type: integer}
    fields:
      title: {type: string, required: true}
  tags:
    module: board
    path: /api/tags/
    fields:
      name: {type: string, required: true}
  cards:
    module: board
    path: /api/cards/
    label: title
    fields:
      title: {type: string, required: true, max: 200}
      list: {type: ref, entity: lists}
      tags: {type: list<ref>, entity: tags}
      estimate: {type: number}
      done: {type: boolean}
      due: {type: string, format: YYYY-MM-DD}
      created: {type: datetime, readOnly: true, source: created_at}
      secret: {type: string, writeOnly: true}
    filter:
      title: {"=": title, "~": title__icontains}
      done: {"=": done}
    sort: {param: ordering, fields: [title, created, done]}
  notes:
    module: board
    path: /api/notes
    detailPath: /api/notes/{id}
    id: {source: data.key, type: string}
    fields:
      title: {type: string, source: attributes.title}
      list: {type: ref, entity: lists, source: relationships.list}
    write: {update: PUT, wrap: note}
"""

MAPPING = load_mapping_text(MAPPING_YAML, env={"U": BASE, "TOKEN": SECRET})
CARDS = MAPPING.entities["cards"]
NOTES = MAPPING.entities["notes"]
LISTS = MAPPING.entities["lists"]

Answer = Callable[[httpx.Request], httpx.Response | Awaitable[httpx.Response]]


def upstream(**changes: Any) -> Upstream:
    return dataclasses.replace(MAPPING.upstream, **changes)


def pagination(**changes: Any) -> Any:
    return dataclasses.replace(MAPPING.upstream.pagination, **changes)


class Recorder:
    """A MockTransport handler: answers with `answer`, keeps every request as sent."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        result = self.answer(request)
        return result if isinstance(result, httpx.Response) else await result

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    @property
    def urls(self) -> list[str]:
        return [str(r.url) for r in self.requests]


def client(answer: Answer, **changes: Any) -> tuple[UpstreamClient, Recorder]:
    recorder = Recorder(answer)
    return UpstreamClient(upstream(**changes), transport=recorder.transport), recorder


def reply(status: int = 200, body: Any = None, **kwargs: Any) -> Answer:
    """Always the same answer; `body` as JSON unless `text`/`content` is given."""

    def answer(request: httpx.Request) -> httpx.Response:
        if body is not None:
            return httpx.Response(status, json=body, **kwargs)
        return httpx.Response(status, **kwargs)

    return answer


def sent_json(request: httpx.Request) -> Any:
    return json.loads(request.content)
