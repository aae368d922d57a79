"""Filters and sorting of an API without a spec, found by read-only probes (no network).

The fake answers each parameter its own way, as real APIs do: exactly, loosely,
not at all, with an error; and sorts one field with nulls last. The probe must
declare exactly the parameters whose answers matched the protocol's own
evaluation, and say why it left out the others.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import yaml

from mapper.probe import ProbeOptions, probe, render

from .fakes import BASE, Fake, json_response

NAMES = ["alpha", "Bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
ROWS: list[dict[str, Any]] = [
    {
        "id": f"it{n}",
        "name": name,
        "status": ("open", "closed", "open", "held")[n % 4],
        "owner": ("ann", "bob")[n % 2],
        "kind": ("a", "b")[n % 2],
        "score": None if n % 3 == 0 else n * 10,
        "note": ("red", "redwood", "blue", "green")[n % 4],
    }
    for n, name in enumerate(NAMES)
]


def _matches(row: dict[str, Any], key: str, value: str) -> bool:
    if key == "status":
        return str(row["status"]) == value  # exact equality
    if key == "note":
        return value in str(row["note"])  # a contains where `=` is claimed: too wide
    return True  # owner, name, id, score: ignored


def _key(row: dict[str, Any], field: str) -> tuple[Any, ...]:
    value = row.get(field)
    if field == "score":  # nulls last ascending: not the protocol's order
        return (value is None, value or 0)
    return (value is not None, value)


def handle(request: httpx.Request) -> httpx.Response:
    parts = [p for p in request.url.path.split("/") if p]
    if request.method != "GET" or not parts or parts[0] != "items":
        return httpx.Response(404, text="")
    if len(parts) == 2:
        found = [r for r in ROWS if r["id"] == parts[1]]
        return json_response(found[0]) if found else httpx.Response(404, text="")
    params = request.url.params
    if "kind" in params:
        return json_response({"error": "kind cannot be filtered"}, 400)
    rows = list(ROWS)
    for key, value in params.items():
        if key not in ("page", "per_page", "sort"):
            rows = [r for r in rows if _matches(r, key, value)]
    if sort := params.get("sort"):
        field = sort.lstrip("-")
        if field not in ("name", "score", "status"):
            return json_response({"error": f"unknown sort field: {field}"}, 400)
        rows.sort(key=lambda r: _key(r, field), reverse=sort.startswith("-"))
    size, page = int(params.get("per_page", "3")), int(params.get("page", "1"))
    body = rows[(page - 1) * size : page * size]
    return httpx.Response(200, json=body, headers={"X-Total-Count": str(len(rows))})


@pytest.fixture(scope="module")
def probed() -> tuple[dict[str, Any], Fake]:
    fake = Fake(handle)
    run = probe(ProbeOptions(url=BASE, collections=("/items",)), transport=fake.transport)
    return yaml.safe_load(render(run.draft)), fake


DECISIONS = [
    ("status", "declared", {"=": {"param": "status", "evidence": [
        {"source": "sample", "detail": "probed: exactly the records it selects"}]}}),
    ("note", "too wide", "returns records the filter does not select: note = (note)"),
    ("owner", "ignored", "ignored: id = (id), name = (name), owner = (owner), score = (score)"),
    ("kind", "refused", "answered 400: kind = (kind)"),
]  # fmt: skip


@pytest.mark.parametrize(("field", "why", "expected"), DECISIONS, ids=[d[0] for d in DECISIONS])
def test_a_filter_is_declared_only_when_the_answer_is_exact(
    probed: tuple[dict[str, Any], Fake], field: str, why: str, expected: Any
) -> None:
    doc, _ = probed
    filters = doc["entities"]["items"].get("filter", {})
    if why == "declared":
        assert filters[field] == expected
    else:
        assert field not in filters
        assert f"entities.items.filter: {expected}" in doc["probe"]["notes"]


def test_sort_keeps_the_fields_ordered_as_the_protocol_orders(
    probed: tuple[dict[str, Any], Fake],
) -> None:
    doc, _ = probed
    assert doc["entities"]["items"]["sort"] == {
        "param": "sort", "desc": "-", "fields": ["name", "status"]
    }  # fmt: skip
    notes = doc["probe"]["notes"]
    assert (
        "entities.items.sort sort: not declared for score (the answer's order differs "
        "from the protocol's)" in notes
    )  # nulls last ascending
    assert (
        "entities.items.sort sort: not declared for id, owner, kind, note (answered 400)" in notes
    )


def test_only_reads_were_sent_and_the_probe_is_deterministic(
    probed: tuple[dict[str, Any], Fake],
) -> None:
    doc, fake = probed
    assert fake.methods() <= {"GET", "HEAD", "OPTIONS"}
    assert {m for m, path in fake.log if "per_page=100" in path} == {"GET"}
    sent = [path for _, path in fake.log]
    assert any("per_page=100" in p and "status=" in p for p in sent)
    again = probe(ProbeOptions(url=BASE, collections=("/items",)), transport=Fake(handle).transport)
    assert yaml.safe_load(render(again.draft)) == doc
