"""Form bodies with bracket nesting, and the client sending them in place of JSON."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import parse_qsl

import pytest

from runtime.mapping import Entity, load_mapping_text
from runtime.upstream import UpstreamClient

from .support import BASE, MAPPING_YAML, SECRET, Recorder, reply

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("body", "pairs"),
    [
        ({"name": "Ada", "amount": 1500}, [("name", "Ada"), ("amount", "1500")]),
        ({"metadata": {"plan": "pro", "seats": 3}},
         [("metadata[plan]", "pro"), ("metadata[seats]", "3")]),
        ({"items": [{"price": "p_1", "quantity": 2}, {"price": "p_2"}]},
         [("items[0][price]", "p_1"), ("items[0][quantity]", "2"), ("items[1][price]", "p_2")]),
        ({"a": {"b": {"c": [True, False]}}}, [("a[b][c][0]", "true"), ("a[b][c][1]", "false")]),
        ({"description": None, "metadata": {}, "tags": []},
         [("description", ""), ("metadata", ""), ("tags", "")]),
        ({"ratio": 1.0, "share": 0.25}, [("ratio", "1"), ("share", "0.25")]),
        ({"note": "a&b=c [d]", "emoji": "é"}, [("note", "a&b=c [d]"), ("emoji", "é")]),
    ],
)  # fmt: skip
async def test_form_bodies_nest_in_brackets(body: dict[str, Any], pairs: list[Any]) -> None:
    api, seen, _ = _client()
    await api.call("POST", "/api/things", json=body)
    request = seen.requests[0]
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert parse_qsl(request.content.decode("ascii"), keep_blank_values=True) == pairs


async def test_create_and_update_by_post_go_out_as_forms_with_codecs_applied() -> None:
    stored = {"id": 9, "title": "T", "made": 1796234734, "price": "2.50", "done": 1}
    api, seen, cards = _client(reply(200, stored))
    record = await api.create_record(
        cards, {"title": "T", "made": "2026-12-02T18:05:34Z", "price": 2.5, "done": True,
                "meta": {"plan": "pro"}},
    )  # fmt: skip
    assert record["made"] == "2026-12-02T18:05:34Z"
    assert record["price"] == 2.5 and record["done"] is True
    sent = parse_qsl(seen.requests[0].content.decode("ascii"))
    assert sent == [("title", "T"), ("made", "1796234734"), ("price", "2.5"), ("done", "1"),
                    ("meta[plan]", "pro")]  # fmt: skip
    await api.update_record(cards, "9", {"done": False})
    update = seen.requests[1]
    assert (update.method, str(update.url)) == ("POST", f"{BASE}/api/cards/9/")
    assert parse_qsl(update.content.decode("ascii")) == [("done", "0")]


async def test_a_json_upstream_is_unchanged() -> None:
    api, seen, _ = _client(encoding="json")
    await api.call("POST", "/api/things", json={"metadata": {"plan": "pro"}})
    assert seen.requests[0].headers["content-type"] == "application/json"


FORM_YAML = (
    MAPPING_YAML.replace(
        "  dialect: django-filter\n", "  dialect: django-filter\n  bodyEncoding: form\n"
    )
    .replace(
        "      created: {type: datetime, readOnly: true, source: created_at}\n",
        "      created: {type: datetime, readOnly: true, source: created_at}\n"
        "      made: {type: datetime, codec: epoch-seconds}\n"
        "      price: {type: number, codec: decimal-string}\n"
        "      meta: {type: json}\n",
    )
    .replace("      done: {type: boolean}\n", "      done: {type: boolean, codec: int-bool}\n")
)


def _client(answer: Any = None, encoding: str = "form") -> tuple[UpstreamClient, Recorder, Entity]:
    mapping = load_mapping_text(FORM_YAML, env={"U": BASE, "TOKEN": SECRET})
    cards = mapping.entities["cards"]
    cards = dataclasses.replace(cards, write=dataclasses.replace(cards.write, update="POST"))
    upstream = dataclasses.replace(mapping.upstream, body_encoding=encoding)
    recorder = Recorder(answer or reply(200, {"ok": True}))
    return UpstreamClient(upstream, transport=recorder.transport), recorder, cards
