"""Creates that answer no record, and wrapped writes, end to end on real HTTP.

`samples/write_shapes` is a small Starlette app behind a Bearer token whose OpenAPI
document sits at no well-known path: only a ``Link: <…>; rel="describedby"`` header on
its root names it. Its collections answer creates as real APIs do when they do not
answer the record: ``notes`` with 201 and a ``Location`` header, ``tags`` with 204 and
nothing else (``name`` is unique, ``x-unique``), ``events`` with 204 and nothing unique;
``cards`` takes and answers its writes under ``card``. Probed from the root URL and the
credential alone, linted, verified with writes, served through the gate, and every
write made through the runtime read back straight from the upstream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.fixtures.runtime import RuntimeServer, start_runtime
from tests.fixtures.stacks import StackServer, start_stack

from .support import AGENT, GRANTS, lint, probe_into, verify_copy

NAME = "write-shapes.probed.yaml"
HEADER = "Authorization: Bearer ${WRITE_SHAPES_TOKEN}"
COLLECTIONS = ("cards", "events", "notes", "tags")
SPEC = "/meta/api-description.json"
# A record of each writable collection, and a change to it, as an agent sends them.
WRITES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "notes": ({"title": "a note through A2App", "body": "hello", "pinned": True},
              {"title": "a note, changed", "body": None}),
    "tags": ({"name": "through-a2app", "color": "green"}, {"color": "blue"}),
    "cards": ({"title": "a card through A2App", "due": "2026-12-24", "done": False},
              {"done": True, "due": "2026-12-31"}),
}  # fmt: skip


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_stack("write_shapes") as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"WRITE_SHAPES_URL": server.url, "WRITE_SHAPES_TOKEN": str(server.token)}


def everything(server: StackServer) -> dict[str, list[dict[str, Any]]]:
    """Every record of every collection, read straight from the upstream, page by page."""
    found: dict[str, list[dict[str, Any]]] = {}
    for name in COLLECTIONS:
        rows: list[dict[str, Any]] = []
        url: str | None = f"{server.url}/{name}?per_page=7"
        while url:
            answer = httpx.get(url, headers=server.headers)
            assert answer.status_code == 200, answer.text
            rows += answer.json()
            url = answer.links.get("next", {}).get("url")
        found[name] = rows
    return found


@pytest.fixture(scope="module")
def probed(
    server: StackServer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    where = tmp_path_factory.mktemp("probe")
    args = [server.url, "--header", HEADER, "--app-id", "write-shapes", "--json"]
    result = probe_into(where, NAME, args, env_of(server))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    return where / NAME, summary


@pytest.fixture(scope="module")
def doc(probed: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(probed[0].read_text())
    return loaded


def test_the_spec_is_found_through_the_root_link_and_the_mapping_lints(
    probed: tuple[Path, dict[str, Any]], doc: dict[str, Any]
) -> None:
    path, summary = probed
    assert summary["ok"] is True and set(summary["requests"]) <= {"GET", "HEAD", "OPTIONS"}
    assert sum(summary["requests"].values()) <= 60 and summary["seconds"] < 30
    assert f'spec: {SPEC} (Link rel="describedby" on /)' in doc["probe"]["notes"]
    assert f"openapi: {SPEC}" in doc["probe"]["sources"]
    assert doc["upstream"]["auth"] == {"type": "bearer", "token": "${WRITE_SHAPES_TOKEN}"}
    assert set(doc["entities"]) == set(COLLECTIONS)
    assert lint(path).exit_code == 0


def test_each_write_shape_is_mapped_with_its_evidence(doc: dict[str, Any]) -> None:
    entities = doc["entities"]
    assert "write" not in entities["notes"]  # the defaults: Location read back
    assert entities["cards"]["write"] == {"wrap": "card", "answer": "card"}
    assert entities["tags"]["write"] == {"findBy": "name"}
    assert entities["events"]["write"] == {"create": False}
    details = [e.get("detail", "") for e in entities["tags"]["evidence"] if isinstance(e, dict)]
    assert any("findBy name" in d and "x-unique" in d for d in details)
    details = [e.get("detail", "") for e in entities["cards"]["evidence"] if isinstance(e, dict)]
    assert any("write bodies under 'card'" in d for d in details)
    creates = [u for u in doc["unmapped"] if u.get("method") == "POST"]
    assert [(u["path"], u["reason"].split(":")[0]) for u in creates] == [
        ("/events", "no-record-answer")
    ]
    cards = entities["cards"]["fields"]
    assert cards["title"]["required"] is True and cards["updated_at"]["readOnly"] is True
    assert cards["due"]["format"] == "YYYY-MM-DD"
    assert entities["notes"]["fields"]["created_at"] == {
        **entities["notes"]["fields"]["created_at"],
        "type": "datetime",
        "readOnly": True,
    }


@pytest.fixture(scope="module")
def verified(
    probed: tuple[Path, dict[str, Any]],
    server: StackServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, Any], dict[str, list[dict[str, Any]]]]:
    before = everything(server)
    copy, done, report = verify_copy(probed[0], tmp_path_factory.mktemp("verify"), env_of(server))
    # Events are never created through the API: their update and delete are not proven
    # (the run writes only records of its own) and withheld; the rest is proven.
    assert done.returncode == 1, done.stdout + done.stderr
    return copy, report, before


def test_verify_with_writes_proves_every_write_shape_and_leaves_the_upstream_as_found(
    verified: tuple[Path, dict[str, Any], dict[str, list[dict[str, Any]]]],
    server: StackServer,
) -> None:
    _, report, before = verified
    assert report["readOnly"] is False and report["outcome"] == "partly-verified"
    outcomes = {c["claim"]: c["outcome"] for c in report["checks"]}
    shapes = ["entities.tags.write.findBy", "entities.cards.write.answer"] + [
        f"entities.{name}.write.{what}"
        for name in WRITES
        for what in ("create", "create.minimal", "update", "delete")
    ]
    assert {claim: outcomes.get(claim) for claim in shapes} == dict.fromkeys(shapes, "passed")
    unproven = {c["claim"] for c in report["checks"] if c["outcome"] != "passed"}
    # Only what the upstream cannot do: a create of events names no record, so the
    # verifier, which writes only records of its own, writes no event.
    assert unproven == {"entities.events.write.update", "entities.events.write.delete"}
    assert everything(server) == before


@pytest.fixture(scope="module")
def runtime(
    verified: tuple[Path, dict[str, Any], dict[str, list[dict[str, Any]]]],
    server: StackServer,
) -> Iterator[RuntimeServer]:
    copy, _, _ = verified
    with start_runtime(copy, server, grants=GRANTS, env=env_of(server), verified=True) as rt:
        yield rt


def a2app(rt: RuntimeServer, method: str, path: str, body: Any = None, **params: str) -> Any:
    return httpx.request(method, rt.url + path, json=body, params=params, headers=AGENT, timeout=30)


def direct(server: StackServer, path: str) -> httpx.Response:
    return httpx.get(server.url + path, headers=server.headers)


@pytest.mark.parametrize("name", sorted(WRITES))
def test_create_update_delete_land_upstream_exactly_as_reported(
    runtime: RuntimeServer, server: StackServer, name: str
) -> None:
    record, change = WRITES[name]
    count = len(everything(server)[name])
    created = a2app(runtime, "POST", f"/api/collections/{name}/records", record)
    assert created.status_code == 200, created.text
    reported = created.json()
    stored = direct(server, f"/{name}/{reported['id']}")
    assert stored.status_code == 200, stored.text
    assert {k: stored.json()[k] for k in record} == record
    assert {k: reported[k] for k in record} == record
    assert len(everything(server)[name]) == count + 1
    path = f"/api/collections/{name}/records/{reported['id']}"
    updated = a2app(runtime, "PATCH", path, change)
    assert updated.status_code == 200, updated.text
    stored = direct(server, f"/{name}/{reported['id']}").json()
    assert {k: stored[k] for k in change} == change
    assert {k: updated.json()[k] for k in record} == {k: stored[k] for k in record}
    deleted = a2app(runtime, "DELETE", path)
    assert deleted.status_code == 200 and deleted.json()["deleted"] == reported["id"]
    assert direct(server, f"/{name}/{reported['id']}").status_code == 404
    assert len(everything(server)[name]) == count


def test_the_create_no_answer_names_is_refused_with_its_code(
    runtime: RuntimeServer, server: StackServer
) -> None:
    before = everything(server)["events"]
    body = {"title": "an event", "starts_at": "2026-12-24T18:00:00Z", "open": True}
    refused = a2app(runtime, "POST", "/api/collections/events/records", body)
    assert refused.status_code == 501, refused.text
    assert refused.json()["code"] == "not_implemented"
    assert everything(server)["events"] == before


def test_an_invalid_wrapped_create_is_refused_with_every_violation(
    runtime: RuntimeServer, server: StackServer
) -> None:
    before = everything(server)["cards"]
    refused = a2app(runtime, "POST", "/api/collections/cards/records",
                    {"due": "soon", "done": "yes"})  # fmt: skip
    assert refused.status_code == 400, refused.text
    named = {v["field"] for v in refused.json()["violations"]}
    assert named == {"title", "due", "done"}
    assert everything(server)["cards"] == before


@pytest.mark.parametrize("name", COLLECTIONS)
def test_walking_every_page_and_a_native_filter_give_the_upstreams_sets(
    runtime: RuntimeServer, server: StackServer, name: str
) -> None:
    upstream = everything(server)[name]
    ids: list[str] = []
    page = 1
    while True:
        answer = a2app(runtime, "GET", f"/api/collections/{name}/records",
                       page=str(page), perPage="6").json()  # fmt: skip
        ids += [item["id"] for item in answer["items"]]
        if page >= answer["totalPages"]:
            break
        page += 1
    assert ids == [str(r["id"]) for r in upstream] and len(set(ids)) == len(ids)
    field, value = {"cards": ("done", True), "events": ("open", False),
                    "notes": ("pinned", True), "tags": ("color", "red")}[name]  # fmt: skip
    shown = f'"{value}"' if isinstance(value, str) else str(value).lower()
    answer = a2app(runtime, "GET", f"/api/collections/{name}/records",
                   filter=f"{field} = {shown}", perPage="500")  # fmt: skip
    expected = [str(r["id"]) for r in upstream if r[field] == value]
    assert 0 < len(expected) < len(upstream)
    assert [item["id"] for item in answer.json()["items"]] == expected
