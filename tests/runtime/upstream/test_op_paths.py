"""Operation path parameters are URL-encoded and stay under the upstream's base URL.

`runtime.service.call_http` fills `{name}` placeholders of an operation's path with
argument values. A value reaches the upstream as exactly one path segment of a URL with
the base URL's scheme, host and port, under its path (percent signs, non-ASCII text,
`@` and `:` included), or, if it holds anything a server might decode into a step to
another resource (a slash, a backslash, a dot segment, `?`, `#`, control characters,
even percent-encoded), it is refused before any request.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from runtime.mapping import Mapping, MappingError, load_mapping_text
from runtime.protocol import ProtocolError
from runtime.service import RuntimeState, call_http
from runtime.store import Store
from runtime.upstream import UpstreamClient

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:9/base"
BASE_URL = httpx.URL(BASE)

MAPPING_YAML = """
format: 1
app: {id: op-paths, name: Operation paths}
upstream:
  baseUrl: ${U}
  auth: {type: header, name: Authorization, value: "Token ${TOKEN}"}
modules:
  - {name: things}
entities:
  items:
    module: things
    path: /items/
    fields:
      title: {type: string}
operations:
  - name: touch-item
    module: things
    destructive: false
    params:
      name: {type: string, required: true}
    request: {method: POST, path: "/items/{name}/", send: none}
  - name: pair
    module: things
    destructive: false
    params:
      first: {type: string, required: true}
      second: {type: string, required: true}
      note: {type: string}
    request: {method: POST, path: "/items/{first}/{second}/", send: query}
"""

MAPPING: Mapping = load_mapping_text(
    MAPPING_YAML, env={"U": BASE, "TOKEN": "op-paths-token-0123456789"}
)


@dataclass
class Recorder:
    """A MockTransport handler that keeps every request it is sent."""

    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json={"ok": True})


@dataclass
class Harness:
    state: RuntimeState
    recorder: Recorder

    async def run(self, op_name: str, args: dict[str, Any]) -> Any:
        op = self.state.mapping.operation(op_name)
        assert op is not None and op.request is not None
        return await call_http(self.state, op, op.request, args)


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    recorder = Recorder()
    store = Store.open("sqlite://")
    client = UpstreamClient.for_mapping(MAPPING, transport=httpx.MockTransport(recorder))
    try:
        yield Harness(RuntimeState(MAPPING, store, client), recorder)
    finally:
        await client.aclose()
        store.close()


def segments_after_base(url: httpx.URL) -> list[str]:
    """The raw (still percent-encoded) path segments below the base path."""
    raw = url.raw_path.split(b"?", 1)[0].decode("ascii")
    prefix = BASE_URL.path.rstrip("/") + "/"
    assert raw.startswith(prefix), raw
    return raw[len(prefix) :].split("/")


def assert_confined(url: httpx.URL) -> None:
    assert (url.scheme, url.host, url.port) == (BASE_URL.scheme, BASE_URL.host, BASE_URL.port)
    assert url.path.startswith(BASE_URL.path + "/"), url
    assert not url.fragment, url
    assert url.userinfo == b"", url


@dataclass(frozen=True)
class Param:
    name: str
    value: str


# Values that are one segment however a server decodes them: sent, encoded.
PARAMS = [
    Param("userinfo", "@evil.example"),
    Param("userinfo with host", "user:pw@evil.example"),
    Param("percent sign alone", "100%"),
    Param("non-ASCII", "Café ☕ 名前"),
    Param("spaces and plus", "a b+c"),
    Param("placeholder text", "{name}"),
    Param("three dots", "..."),
    Param("a colon", "http:x"),
]  # fmt: skip

# Values that could leave their segment on a server that decodes `%2F` (or a proxy
# in front of one): refused before any request, however they are spelled.
STEERING = [
    Param("dot-dot slash", "../"),
    Param("two levels up", "../../etc"),
    Param("encoded slash between dot-dots", "..%2F.."),
    Param("a slash", "a/b"),
    Param("encoded dot-dot", "%2e%2e"),
    Param("encoded dot-dot, upper case", "%2E%2E/x"),
    Param("absolute URL", "http://evil.example/x"),
    Param("scheme-relative URL", "//evil.example"),
    Param("query", "?q=1"),
    Param("fragment", "#frag"),
    Param("backslashes", "..\\..\\admin"),
    Param("control characters", "a\r\nHost: evil.example"),
    Param("double-encoded slash", "a%252Fb"),
]  # fmt: skip


@pytest.mark.parametrize("case", PARAMS, ids=lambda c: c.name)
async def test_a_path_param_is_one_segment_under_the_base(harness: Harness, case: Param) -> None:
    await harness.run("touch-item", {"name": case.value})
    assert len(harness.recorder.requests) == 1
    url = harness.recorder.requests[0].url
    assert_confined(url)
    parts = segments_after_base(url)
    assert len(parts) == 3 and parts[0] == "items" and parts[2] == "", parts
    assert unquote(parts[1]) == case.value
    assert url.query == b""


@pytest.mark.parametrize("case", STEERING, ids=lambda c: c.name)
async def test_a_path_param_that_could_leave_its_segment_is_refused(
    harness: Harness, case: Param
) -> None:
    with pytest.raises(ProtocolError) as caught:
        await harness.run("touch-item", {"name": case.value})
    assert (caught.value.code, caught.value.extra.get("field")) == ("usage", "name")
    assert harness.recorder.requests == []


@dataclass(frozen=True)
class Pair:
    name: str
    first: str
    second: str
    note: str | None = None


PAIRS = [
    Pair("first names the second placeholder", "{second}", "b"),
    Pair("query param holds a path", "a", "b", note="/../../admin?x=1#y"),
]  # fmt: skip


@pytest.mark.parametrize("case", PAIRS, ids=lambda c: c.name)
async def test_each_placeholder_gets_its_own_value(harness: Harness, case: Pair) -> None:
    args = {"first": case.first, "second": case.second}
    if case.note is not None:
        args["note"] = case.note
    await harness.run("pair", args)
    assert len(harness.recorder.requests) == 1
    url = harness.recorder.requests[0].url
    assert_confined(url)
    parts = segments_after_base(url)
    assert len(parts) == 4 and parts[0] == "items" and parts[3] == "", parts
    assert [unquote(parts[1]), unquote(parts[2])] == [case.first, case.second]
    expected_query = {} if case.note is None else {"note": case.note}
    assert dict(url.params) == expected_query


@dataclass(frozen=True)
class DotSegment:
    name: str
    value: str


# A value that IS a dot segment cannot travel as one path segment: sent as is, the URL
# library removes it (`/items/../` is `/`), and percent-encoded (`%2E%2E`) it still means
# ".." to any server that normalises (RFC 3986 §6.2.2.2). Refusing it is the only way
# to keep it from naming another resource; sending it must never reach another path.
DOT_SEGMENTS = [DotSegment("dot", "."), DotSegment("dot-dot", "..")]


@pytest.mark.parametrize("case", DOT_SEGMENTS, ids=lambda c: c.name)
async def test_a_dot_segment_op_param_never_names_another_resource(
    harness: Harness, case: DotSegment
) -> None:
    with contextlib.suppress(ProtocolError):
        await harness.run("touch-item", {"name": case.value})
    sent = [str(r.url) for r in harness.recorder.requests]
    assert sent == [], f"{case.value!r} was sent as {sent}"


@pytest.mark.parametrize("case", DOT_SEGMENTS, ids=lambda c: c.name)
async def test_a_dot_segment_record_id_never_names_another_resource(
    harness: Harness, case: DotSegment
) -> None:
    items = harness.state.mapping.entities["items"]
    with contextlib.suppress(ProtocolError):
        await harness.state.upstream.update_record(items, case.value, {"title": "x"})
    sent = [f"{r.method} {r.url}" for r in harness.recorder.requests]
    assert sent == [], f"{case.value!r} was sent as {sent}"


OPTIONAL_IN_PATH_YAML = (
    MAPPING_YAML
    + """
  - name: maybe
    module: things
    destructive: false
    params:
      name: {type: string}
    request: {method: POST, path: "/items/{name}/", send: none}
"""
)
ABSENT = object()


@dataclass(frozen=True)
class Blank:
    name: str
    value: object


# The guard lets a blank optional param through ("clear" it, §10.2 rule 4), and an
# absent one too; neither may become a segment: not the text "null", not an empty
# segment (a server merging slashes reads `/items//` as the collection), not the
# placeholder itself.
BLANKS = [Blank("absent", ABSENT), Blank("null", None), Blank("empty", "")]


@pytest.mark.parametrize("case", BLANKS, ids=lambda c: c.name)
async def test_a_blank_or_absent_path_param_is_never_sent(case: Blank) -> None:
    try:
        mapping = load_mapping_text(OPTIONAL_IN_PATH_YAML, env={"U": BASE, "TOKEN": "t0ken-0123"})
    except MappingError:
        return  # refusing an optional path placeholder up front is as good
    op = mapping.operation("maybe")
    assert op is not None and op.request is not None
    recorder = Recorder()
    store = Store.open("sqlite://")
    client = UpstreamClient.for_mapping(mapping, transport=httpx.MockTransport(recorder))
    args = {} if case.value is ABSENT else {"name": case.value}
    try:
        with contextlib.suppress(ProtocolError):
            await call_http(RuntimeState(mapping, store, client), op, op.request, args)
    finally:
        await client.aclose()
        store.close()
    sent = [str(r.url) for r in recorder.requests]
    assert sent == [], f"{args} was sent as {sent}"
