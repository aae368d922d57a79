"""Record reads and writes, operations, and the client's lifetime."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import pytest

from runtime.mapping import WriteSpec
from runtime.protocol import ProtocolError
from runtime.upstream import UpstreamClient

from .support import BASE, CARDS, MAPPING, NOTES, Recorder, client, reply, sent_json, upstream

pytestmark = pytest.mark.anyio

CARD = {"id": 7, "title": "Fix", "list": 3, "tags": [], "created_at": "2026-01-01T00:00:00Z"}


async def test_get_record_reads_the_detail_path() -> None:
    api, seen = client(reply(200, CARD))
    record = await api.get_record(CARDS, "a b:7")
    assert record is not None and record["id"] == "7" and record["created"] == CARD["created_at"]
    assert seen.urls == [f"{BASE}/api/cards/a%20b%3A7/"]
    assert seen.requests[0].method == "GET"


@pytest.mark.parametrize("ident", ["a/7", "..%2F..%2Fboards", "%252F", "..", "a\\b", "a?b"])
async def test_an_id_that_could_leave_its_segment_is_never_sent(ident: str) -> None:
    api, seen = client(reply(200, CARD))
    assert await api.get_record(CARDS, ident) is None
    with pytest.raises(ProtocolError) as info:
        await api.update_record(CARDS, ident, {"title": "x"})
    assert info.value.code == "record_not_found"
    with pytest.raises(ProtocolError):
        await api.delete_record(CARDS, ident)
    assert seen.urls == []


async def test_get_record_unwraps_the_item_envelope() -> None:
    api, _ = client(reply(200, {"card": CARD}), item_envelope=("card",))
    record = await api.get_record(CARDS, 7)
    assert record is not None and record["title"] == "Fix"


@pytest.mark.parametrize("body", [[CARD], "text", 5, None, {"card": [CARD]}])
async def test_get_record_of_the_wrong_shape_is_an_upstream_error(body: Any) -> None:
    api, _ = client(reply(200, body), item_envelope=("card",))
    with pytest.raises(ProtocolError) as info:
        await api.get_record(CARDS, 7)
    assert info.value.code == "upstream_error"


async def test_create_sends_upstream_shape_and_returns_the_stored_record() -> None:
    api, seen = client(reply(201, {**CARD, "title": "New"}))
    record = await api.create_record(CARDS, {"title": "New", "created": "x", "list": "3"})
    assert record["title"] == "New" and record["list"] == "3"
    request = seen.requests[0]
    assert (request.method, str(request.url)) == ("POST", f"{BASE}/api/cards/")
    assert sent_json(request) == {"title": "New", "list": "3"}
    assert request.headers["content-type"] == "application/json"


async def test_create_wraps_and_nests() -> None:
    stored = {"data": {"key": "n1"}, "attributes": {"title": "Hi"}}
    api, seen = client(reply(201, stored))
    record = await api.create_record(NOTES, {"title": "Hi"})
    assert record == {"id": "n1", "title": "Hi", "list": None}
    assert sent_json(seen.requests[0]) == {"note": {"attributes": {"title": "Hi"}}}


async def test_create_with_an_empty_answer_reads_the_location() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(201, headers={"Location": "/v1/api/cards/7/"})
        return httpx.Response(200, json=CARD)

    api, seen = client(answer)
    record = await api.create_record(CARDS, {"title": "Fix"})
    assert record["id"] == "7"
    assert seen.urls[-1] == f"{BASE}/api/cards/7/"


async def test_create_location_outside_is_refused() -> None:
    api, seen = client(reply(201, headers={"Location": "http://evil.test/cards/7"}))
    with pytest.raises(ProtocolError, match="outside the upstream"):
        await api.create_record(CARDS, {"title": "Fix"})
    assert len(seen.requests) == 1


async def test_refs_to_integer_entities_go_out_as_numbers() -> None:
    recorder = Recorder(reply(201, CARD))
    api = UpstreamClient.for_mapping(
        dataclasses.replace(MAPPING, upstream=upstream()), transport=recorder.transport
    )
    await api.create_record(CARDS, {"title": "Fix", "list": "3"})
    assert sent_json(recorder.requests[0]) == {"title": "Fix", "list": 3}


async def test_update_patches_only_the_changes() -> None:
    api, seen = client(reply(200, {**CARD, "title": "Changed"}))
    record = await api.update_record(CARDS, 7, {"title": "Changed"})
    assert record is not None and record["title"] == "Changed"
    assert seen.requests[0].method == "PATCH"
    assert sent_json(seen.requests[0]) == {"title": "Changed"}


async def test_update_by_put_keeps_what_was_not_mentioned() -> None:
    stored = {"data": {"key": "n1"}, "attributes": {"title": "Old"}, "relationships": {"list": 4}}

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=stored)
        return httpx.Response(200, json={**stored, "attributes": {"title": "New"}})

    api, seen = client(answer)
    record = await api.update_record(NOTES, "n1", {"title": "New"})
    assert record == {"id": "n1", "title": "New", "list": "4"}
    assert [r.method for r in seen.requests] == ["GET", "PUT"]
    assert sent_json(seen.requests[1]) == {
        "note": {"attributes": {"title": "New"}, "relationships": {"list": "4"}}
    }


async def test_update_answered_with_no_content_reads_back() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(204) if request.method == "PATCH" else httpx.Response(200, json=CARD)

    api, seen = client(answer)
    record = await api.update_record(CARDS, 7, {"title": "Fix"})
    assert record is not None and record["id"] == "7"
    assert [r.method for r in seen.requests] == ["PATCH", "GET"]


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [(204, None, {"id": "7"}), (200, CARD, None), (200, {"deleted": True}, {"id": "7"})],
)
async def test_delete(status: int, body: Any, expected: dict[str, Any] | None) -> None:
    api, seen = client(reply(status, body))
    result = await api.delete_record(CARDS, 7)
    assert seen.requests[0].method == "DELETE"
    if expected is None:
        assert result is not None and result["title"] == "Fix"
    else:
        assert result == expected


@pytest.mark.parametrize(
    ("write", "call"),
    [
        (WriteSpec(create=False), "create"),
        (WriteSpec(update=None), "update"),
        (WriteSpec(delete=False), "delete"),
    ],
)
async def test_writes_the_mapping_does_not_allow_are_refused(write: WriteSpec, call: str) -> None:
    entity = dataclasses.replace(CARDS, write=write)
    api, seen = client(reply(200, CARD))
    with pytest.raises(ProtocolError) as info:
        if call == "create":
            await api.create_record(entity, {"title": "x"})
        elif call == "update":
            await api.update_record(entity, 7, {"title": "x"})
        else:
            await api.delete_record(entity, 7)
    assert info.value.code == "not_implemented"
    assert seen.requests == []


async def test_call_for_operations() -> None:
    api, seen = client(reply(200, {"count": 3}))
    assert await api.call("post", "/api/cards/7/finish/", params={"x": "1"}, json={"a": 1}) == {
        "count": 3
    }
    request = seen.requests[0]
    assert (request.method, str(request.url)) == ("POST", f"{BASE}/api/cards/7/finish/?x=1")
    assert sent_json(request) == {"a": 1}


async def test_call_without_body_sends_none() -> None:
    api, seen = client(reply(204))
    assert await api.call("POST", "/api/boards/b1/archive/") is None
    assert seen.requests[0].content == b""


async def test_call_refuses_unknown_methods() -> None:
    api, _ = client(reply(200, {}))
    with pytest.raises(ValueError):
        await api.call("TRACE", "/x")


async def test_lifetime_and_settings() -> None:
    async with UpstreamClient(upstream(timeout_seconds=3.5)) as api:
        assert api._http.timeout.read == 3.5
        assert api.dialect.name == "django-filter"
    assert api._http.is_closed


async def test_one_pooled_connection_is_shared() -> None:
    api, seen = client(reply(200, CARD))
    http = api._http
    await api.get_record(CARDS, 1)
    await api.get_record(CARDS, 2)
    assert api._http is http and len(seen.requests) == 2
    await api.aclose()


PROJECTS = dataclasses.replace(MAPPING.entities["tags"], id_source=("slug",), id_client=True)


@pytest.mark.parametrize(
    ("status", "stored_at", "outcome"),
    [
        (204, {"slug": "apollo", "name": "Apollo"}, "apollo"),  # read back at the chosen id
        (201, {"slug": "apollo", "name": "Apollo"}, "apollo"),
        (204, None, "refused"),  # nothing there: never reported as created
    ],
)
async def test_a_bodiless_create_is_read_back_at_the_id_the_client_chose(
    status: int, stored_at: dict[str, Any] | None, outcome: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(status)
        if stored_at is None:
            return httpx.Response(404, json={"detail": "Not found."})
        return httpx.Response(200, json=stored_at)

    api, seen = client(answer)
    if outcome == "refused":
        with pytest.raises(ProtocolError):
            await api.create_record(PROJECTS, {"id": "apollo", "name": "Apollo"})
    else:
        record = await api.create_record(PROJECTS, {"id": "apollo", "name": "Apollo"})
        assert record == {"id": outcome, "name": "Apollo"}
    assert sent_json(seen.requests[0]) == {"slug": "apollo", "name": "Apollo"}
    assert seen.urls[-1] == f"{BASE}/api/tags/apollo/"


async def test_a_write_answered_under_a_key_is_read_there() -> None:
    wrapped = dataclasses.replace(CARDS, write=WriteSpec(answer=("card",)))
    api, _ = client(reply(201, {"card": CARD}))
    assert (await api.create_record(wrapped, {"title": "Fix"}))["id"] == "7"
    api, _ = client(reply(200, {"card": CARD}))
    assert (await api.update_record(wrapped, "7", {"title": "Fix"}) or {})["id"] == "7"
    bare = dataclasses.replace(NOTES, write=WriteSpec(answer=()))
    api, _ = client(reply(201, {"data": {"key": "n1"}, "attributes": {"title": "Hi"}}))
    assert (await api.create_record(bare, {"title": "Hi"}))["id"] == "n1"


FOUND = dataclasses.replace(CARDS, write=WriteSpec(find_by="title"))


@pytest.mark.parametrize(
    ("listed", "outcome"),
    [
        ([{**CARD, "id": 6, "title": "Other"}, CARD], "7"),
        ([{**CARD, "id": 6, "title": "Other"}], "none"),
        ([CARD, {**CARD, "id": 8}], "two"),
    ],
)
async def test_a_create_answered_with_no_id_is_found_by_the_unique_value_it_sent(
    listed: list[dict[str, Any]], outcome: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(204)
        return httpx.Response(200, json={"count": len(listed), "next": None, "results": listed})

    api, seen = client(answer)
    body = {"title": CARD["title"], "done": False}
    if outcome == "7":
        assert (await api.create_record(FOUND, body))["id"] == "7"
    else:
        with pytest.raises(ProtocolError) as info:
            await api.create_record(FOUND, body)
        assert info.value.extra.get("outcomeUnknown") is True  # never told it was done
    assert seen.requests[1].url.params["title"] == CARD["title"]  # the declared filter, pushed
    assert [r.method for r in seen.requests] == ["POST", "GET"]


FORBIDDEN = {"errors": [{"message": "You don't have permission to access this."}]}


async def test_a_missing_record_answered_403_reads_as_none_when_declared() -> None:
    api, _ = client(reply(403, FORBIDDEN), not_found_status=403)
    assert await api.get_record(CARDS, 7) is None
    assert await api.delete_record(CARDS, 7) is None
    assert await api.update_record(CARDS, 7, {"title": "x"}) is None


async def test_a_403_is_refused_credentials_unless_declared_or_on_a_listing() -> None:
    api, _ = client(reply(403, FORBIDDEN))
    with pytest.raises(ProtocolError) as info:
        await api.get_record(CARDS, 7)
    assert info.value.code == "upstream_auth_failed"
    declared, _ = client(reply(403, FORBIDDEN), not_found_status=403)
    with pytest.raises(ProtocolError) as info:
        await declared.list_page(CARDS, {}, page=1, per_page=10)
    assert info.value.code == "upstream_auth_failed"
