"""Templated collection routes walked read-only into one entity per instance, bounded."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import yaml

from mapper.probe import ProbeOptions, probe, render
from mapper.probe.decide._instances import MAX_INSTANCES

from ..fakes import BASE, Fake, json_response

PATH_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}


def _param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


def _object(**props: str) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}


def _ok(schema: Any) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _collection(path: str, item: Any, params: list[Any], writes: bool = False) -> dict[str, Any]:
    """A list route and its detail route (`{id}`), with JSON writes when asked."""
    many = _ok({"type": "array", "items": item})
    listed: dict[str, Any] = {"get": {"parameters": params, "responses": many}}
    detail: dict[str, Any] = {
        "get": {"parameters": [*params, PATH_ID], "responses": _ok(item)},
    }
    if writes:
        body = {"content": {"application/json": {"schema": item}}}
        listed["post"] = {"parameters": params, "requestBody": body, "responses": _ok(item)}
        detail["patch"] = {"parameters": [*params, PATH_ID], "requestBody": body,
                           "responses": _ok(item)}  # fmt: skip
        detail["delete"] = {"parameters": [*params, PATH_ID], "responses": {"204": {
            "description": "gone"}}}  # fmt: skip
    return {path: listed, path + "/{id}": detail}


BIN = _object(id="string", name="string")
RECORD = _object(id="integer", email="string", vip="boolean")
FOLDER = _object(collection="string", note="string")
ITEM = _object(id="integer", title="string")
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Store API", "version": "1"},
    "paths": {
        **_collection("/bins", BIN, []),
        **_collection("/bins/{bin_id}/records", RECORD, [_param("bin_id")], writes=True),
        **_collection("/collections", FOLDER, []),
        **_collection("/items/{collection}", ITEM, [_param("collection")]),
        **_collection("/orgs/{org}/members", ITEM, [_param("org")]),
    },
}


def _store(bins: list[dict[str, Any]], total: int | None = None) -> Fake:
    """Bins of records, and CMS-like items listed per collection; /orgs lists nothing."""
    records = {b["id"]: [{"id": 1, "email": f"a@{b['id']}.test", "vip": False}] for b in bins}
    items = {"articles": [{"id": 1, "title": "Hello"}], "authors": [{"id": 7, "title": "Ann"}]}

    def handle(request: httpx.Request) -> httpx.Response:
        parts = [p for p in request.url.path.split("/") if p]
        if parts == ["openapi.json"]:
            return json_response(SPEC)
        if parts == ["bins"]:
            headers = {"X-Total-Count": str(total)} if total else {}
            return json_response(bins, **headers)
        if parts[:1] == ["bins"] and len(parts) >= 3 and parts[1] in records:
            rows = records[parts[1]]
            return json_response(rows if len(parts) == 3 else rows[0])
        if parts == ["collections"]:
            return json_response([{"collection": name, "note": ""} for name in items])
        if parts[:1] == ["items"] and len(parts) >= 2 and parts[1] in items:
            rows = items[parts[1]]
            return json_response(rows if len(parts) == 2 else rows[0])
        return httpx.Response(404, json={"error": "not found"})

    return Fake(handle)


def _probe(fake: Fake) -> dict[str, Any]:
    run = probe(ProbeOptions(url=BASE), transport=fake.transport)
    doc: dict[str, Any] = yaml.safe_load(render(run.draft))
    assert fake.methods() <= {"GET", "HEAD", "OPTIONS"}
    return doc


def test_each_instance_of_a_template_becomes_an_entity() -> None:
    bins = [{"id": "b1", "name": "Customers"}, {"id": "b2", "name": "Orders"}, {"id": "b3"}]
    doc = _probe(_store(bins))
    entities = doc["entities"]
    # (/collections itself has no id field: unmapped, yet its records name the items.)
    assert sorted(entities) == ["articles", "authors", "bins", "bins_b3", "customers", "orders"]
    customers = entities["customers"]
    assert customers["path"] == "/bins/b1/records"
    assert "detailPath" not in customers  # /bins/b1/records/{id}, read back
    how = "an instance of /bins/{bin_id}/records (bin_id=b1), its parents listed by /bins"
    assert {"source": "links", "detail": how} in customers["evidence"]
    assert set(customers["fields"]) == {"email", "vip"}
    assert "write" not in customers  # the template's POST, PATCH and DELETE, at its path
    assert entities["articles"]["write"] == {"create": False, "update": False, "delete": False}
    articles = entities["articles"]
    assert articles["path"] == "/items/articles"
    how = "an instance of /items/{collection} (collection=articles), its parents listed by " \
          "/collections"  # fmt: skip
    assert {"source": "links", "detail": how} in articles["evidence"]
    # The template no parent lists stays a nested collection; the mapped ones are no
    # longer listed, and their write routes are not proposed as operations.
    unmapped = {(u["path"], u["reason"].split(":")[0]) for u in doc.get("unmapped", [])}
    assert ("/orgs/{org}/members", "nested-collection") in unmapped
    assert not {p for p, code in unmapped if code == "nested-collection"} - {"/orgs/{org}/members"}
    paths = [op["request"]["path"] for op in doc["operations"]]
    assert paths == ["/collections/{id}", "/orgs/{org}/members/{id}"]


@pytest.mark.parametrize(("count", "total"), [(MAX_INSTANCES + 3, None), (5, 40)])
def test_instances_are_bounded_and_the_rest_listed(count: int, total: int | None) -> None:
    bins = [{"id": f"b{i:02d}", "name": f"Bin {i:02d}"} for i in range(count)]
    doc = _probe(_store(bins, total))
    mapped = sorted(n for n in doc["entities"] if n.startswith("bin_"))
    assert mapped == [f"bin_{i:02d}" for i in range(min(count, MAX_INSTANCES))]
    limited = [u for u in doc["unmapped"] if u["reason"].startswith("instance-limit")]
    past = [u["path"] for u in limited if u["path"] != "/bins/{bin_id}/records"]
    assert past == [f"/bins/b{i:02d}/records" for i in range(MAX_INSTANCES, count)]
    follows = [u for u in limited if u["path"] == "/bins/{bin_id}/records"]
    assert len(follows) == (1 if total else 0)
