"""`Intake`, driven as an ASGI app: the header cap, then the Host guard, then the routed
path, in one pass; the inner app is a recorder."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from runtime.web._http import HEADERS_LIMIT
from runtime.web._middleware import HOSTS_KEPT, Intake

FOREIGN = b"evil.example.com"


@dataclass
class Recorder:
    scopes: list[Scope] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.scopes.append(scope)


@dataclass
class Allowed:
    """The guard's question, counted: the memo must ask once per Host value."""

    asked: list[str | None] = field(default_factory=list)

    def __call__(self, host: str | None) -> bool:
        self.asked.append(host)
        return host is None or not host.startswith("evil")


def _scope(raw_path: bytes, headers: list[tuple[bytes, bytes]]) -> Scope:
    return {
        "type": "http",
        "method": "GET",
        "path": raw_path.decode("latin-1"),
        "raw_path": raw_path,
        "query_string": b"",
        "headers": headers,
    }


def _drive(intake: Intake, scope: Scope) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(intake(scope, receive, send))
    return sent


def _refusal(sent: list[Message]) -> tuple[int, dict[str, Any], dict[bytes, bytes]]:
    start, body = sent
    return start["status"], json.loads(body["body"]), dict(start["headers"])


@dataclass(frozen=True)
class Refused:
    name: str
    headers: list[tuple[bytes, bytes]]
    status: int
    code: str


LONG = (b"x-padding", b"a" * HEADERS_LIMIT)

REFUSED = [
    Refused("foreign host", [(b"host", FOREIGN)], 403, "forbidden_host"),
    Refused("foreign host with a port", [(b"host", FOREIGN + b":80")], 403, "forbidden_host"),
    Refused("headers over the cap", [(b"host", b"127.0.0.1"), LONG], 413, "payload_too_large"),
    # the cap is checked before the Host: the section is not read past it
    Refused("over the cap and foreign", [(b"host", FOREIGN), LONG], 413, "payload_too_large"),
    # the first Host counts, as the guard has always read it
    Refused("foreign host first", [(b"host", FOREIGN), (b"host", b"localhost")], 403,
            "forbidden_host"),
]  # fmt: skip


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.name)
def test_refused_before_any_route_in_the_protocols_envelope(case: Refused) -> None:
    inner = Recorder()
    sent = _drive(Intake(inner, Allowed()), _scope(b"/api/_a2app", case.headers))
    status, body, headers = _refusal(sent)
    assert (status, body["code"]) == (case.status, case.code)
    assert inner.scopes == []
    if case.code == "payload_too_large":
        assert body["limitBytes"] == HEADERS_LIMIT
        assert headers[b"connection"] == b"close"
    else:
        assert body["message"] == f"Host {case.headers[0][1].decode()} is not allowed."


@pytest.mark.parametrize(
    ("headers", "raw", "routed"),
    [
        ([(b"host", b"127.0.0.1:8000")], b"/api/_a2app/describe", "/api/_a2app/describe"),
        ([], b"/api/_a2app/describe/", "/api/_a2app/describe"),  # no Host: allowed
        ([(b"host", b"localhost")], b"/records/a%2Fb", "/records/a%2Fb"),
        ([(b"host", b"[::1]:1")], b"/records/caf%C3%A9", "/records/caf\u00e9"),
        ([(b"host", b"localhost")], b"///", "/"),
    ],
)  # fmt: skip
def test_passed_on_with_the_path_routes_match(
    headers: list[tuple[bytes, bytes]], raw: bytes, routed: str
) -> None:
    inner = Recorder()
    scope = _scope(raw, headers)
    assert _drive(Intake(inner, Allowed()), scope) == []
    [seen] = inner.scopes
    assert seen["path"] == routed
    assert scope["path"] == raw.decode("latin-1")  # the server's scope is left as it came


def test_the_host_answer_is_asked_once_per_value_and_the_memo_stays_bounded() -> None:
    allowed, inner = Allowed(), Recorder()
    intake = Intake(inner, allowed)
    for _ in range(3):
        assert _refusal(_drive(intake, _scope(b"/", [(b"host", FOREIGN)])))[0] == 403
        assert _drive(intake, _scope(b"/", [(b"host", b"localhost")])) == []
    assert allowed.asked == ["evil.example.com", "localhost"]
    # as many more values as the memo keeps: it starts over, so the first is asked again
    for n in range(HOSTS_KEPT):
        _drive(intake, _scope(b"/", [(b"host", f"h{n}.localhost".encode())]))
    _drive(intake, _scope(b"/", [(b"host", FOREIGN)]))
    assert allowed.asked[-1] == "evil.example.com"
    assert len(allowed.asked) == 2 + HOSTS_KEPT + 1
    assert _refusal(_drive(intake, _scope(b"/", [(b"host", FOREIGN)])))[0] == 403


def test_other_scopes_pass_untouched() -> None:
    inner = Recorder()
    scope: Scope = {"type": "lifespan"}
    assert _drive(Intake(inner, Allowed()), scope) == []
    assert inner.scopes == [scope]
