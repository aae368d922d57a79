"""Whole probes of other stacks, each an in-memory upstream (no network).

Each scenario states what the mapping must say about that stack and that only
GET, HEAD and OPTIONS reached it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
import yaml

from mapper.probe import (
    AuthRefused,
    NothingMappable,
    ProbeOptions,
    UnreachableError,
    probe,
    render,
)
from runtime.mapping import check_text

from .fakes import (
    BASE,
    KANBAN_ROWS,
    Fake,
    drf_spec_only_server,
    html_site,
    json_server,
    jsonapi,
    payload,
    rails,
)

Check = Callable[[dict[str, Any]], None]
EXACT = "probed: exactly the records it selects"


def _rails(doc: dict[str, Any]) -> None:
    up = doc["upstream"]
    assert up["pagination"] == {
        "style": "page",
        "page": "page",
        "size": "per_page",
        "items": "",
        "totalHeader": "X-Total-Count",
    }
    assert up["errors"] == "rails"
    cards = doc["entities"]["cards"]
    assert cards["id"] == {"source": "id", "type": "integer"}
    assert (
        cards["fields"]["list_id"]["type"] == "ref"
        and cards["fields"]["list_id"]["entity"] == "lists"
    )
    assert cards["fields"]["due_date"]["format"] == "YYYY-MM-DD"
    assert cards["fields"]["priority"]["valuesClosed"] is False
    # Rails conventions: resource routes with bodies under the model's key, for verify
    assert cards["write"] == {"wrap": "card"}
    assert cards["fields"]["list_id"]["required"] is True
    assert {"source": "owner", "detail": "named with --collection"} in cards["evidence"]
    # probed read-only: the fake filters by plain equality, comparing str(value)
    assert cards["filter"]["list_id"] == {
        "=": {"param": "list_id", "evidence": [{"source": "sample", "detail": EXACT}]}
    }
    assert "done" not in cards["filter"]  # str(True) is "True": the answer drops records


def _json_server(doc: dict[str, Any]) -> None:
    up = doc["upstream"]
    assert up["pagination"] == {
        "style": "link",
        "page": "_page",
        "size": "_limit",
        "items": "",
        "totalHeader": "X-Total-Count",
    }
    assert up["dialect"] == "json-server"
    assert sorted(doc["entities"]) == ["boards", "cards", "lists"]
    cards = doc["entities"]["cards"]
    assert "write" not in cards  # json-server's router: POST, PATCH and DELETE everywhere
    assert cards["filter"]["title"] == {
        "=": {"param": "title", "evidence": [{"source": "sample", "detail": EXACT}]}
    }
    assert doc["unmapped"] == [
        {
            "path": "/db",
            "method": "GET",
            "reason": "api-root: an index of the collections, not data",
        }
    ]


def _jsonapi(doc: dict[str, Any]) -> None:
    cards = doc["entities"]["cards"]["fields"]
    assert cards["title"]["source"] == "attributes.title"
    assert cards["list"] == {
        "type": "ref",
        "source": "relationships.list.data.id",
        "entity": "lists",
        "evidence": cards["list"]["evidence"],
        "confidence": "high",
    }
    assert doc["upstream"]["errors"] == "jsonapi"
    assert doc["upstream"]["envelope"] == {"item": "data"}


def _html_site(rendering: str, path: str, detail: str) -> Check:
    def check(doc: dict[str, Any]) -> None:
        assert sorted(doc["entities"]) == ["boards", "cards", "lists"]
        cards = doc["entities"]["cards"]
        assert (cards["path"], cards["detailPath"]) == (path, detail)
        page = f"linked from the HTML page /; JSON by {rendering}"
        assert {"source": "links", "detail": page} in cards["evidence"]
        sources = [e if isinstance(e, str) else e["source"] for e in cards["evidence"]]
        assert "lookup" in sources  # the detail route read a sampled record back
        ref = cards["fields"]["list_id"]
        assert (ref["type"], ref["entity"]) == ("ref", "lists")  # looked up at /lists/{id}.json
        assert doc["upstream"]["errors"] == "rails" and cards["write"] == {"wrap": "card"}
        root = {"path": "/", "method": "GET", "reason": "api-root: an HTML page linking the "
                "collections"}  # fmt: skip
        assert root in doc["unmapped"]
        assert "links: / (HTML)" in doc["probe"]["sources"]

    return check


SCENARIOS: list[tuple[str, Fake, dict[str, Any], Check]] = [
    (
        "html site, JSON by suffix",
        html_site(KANBAN_ROWS),
        {},
        _html_site(".json suffix", "/cards.json", "/cards/{id}.json"),
    ),
    (
        "html site, lists by Accept, records by suffix",
        html_site(KANBAN_ROWS, "accept"),
        {},
        _html_site("Accept: application/json", "/cards", "/cards/{id}.json"),
    ),
    ("rails", rails(KANBAN_ROWS), {"collections": ("/boards", "/lists", "/cards")}, _rails),
    ("json-server", json_server(KANBAN_ROWS), {}, _json_server),
    (
        "jsonapi",
        jsonapi(KANBAN_ROWS, {"cards": {"list": "lists"}, "lists": {"board": "boards"}}),
        {},
        _jsonapi,
    ),
]


@pytest.mark.parametrize(
    ("name", "fake", "options", "check"), SCENARIOS, ids=[s[0] for s in SCENARIOS]
)
def test_stacks(name: str, fake: Fake, options: dict[str, Any], check: Check) -> None:
    run = probe(ProbeOptions(url=BASE, **options), transport=fake.transport)
    text = render(run.draft)
    assert check_text(text)[1] == []
    check(yaml.safe_load(text))
    assert fake.methods() <= {"GET", "HEAD", "OPTIONS"}
    again = probe(ProbeOptions(url=BASE, **options), transport=fake.transport)
    assert render(again.draft) == text


def test_a_probe_whose_every_read_was_refused_names_the_header() -> None:
    """Only the spec answers: a mapping of it would hold nothing the API was seen to hold."""
    fake = drf_spec_only_server(payload("drf-openapi.json"))
    with pytest.raises(AuthRefused) as info:
        probe(ProbeOptions(url=BASE), transport=fake.transport)
    assert info.value.header == "Authorization: Token ${KANBAN_TOKEN}"
    assert info.value.exit_code == 2 and "WWW-Authenticate: Token" in info.value.message
    refused = [f.path for f in info.value.findings if f.code == "auth-refused"]
    assert refused == ["/api/boards/", "/api/cards/", "/api/lists/", "/api/tags/"]
    assert fake.methods() == {"GET"}


def test_an_api_with_nothing_to_map_says_so() -> None:
    fake = Fake(
        lambda request: httpx.Response(
            200, text="<html>Sign in</html>", headers={"content-type": "text/html"}
        )
    )
    with pytest.raises(NothingMappable):
        probe(ProbeOptions(url=BASE), transport=fake.transport)


def test_an_unreachable_upstream_stops_the_probe() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(UnreachableError):
        probe(ProbeOptions(url=BASE), transport=httpx.MockTransport(refuse))
