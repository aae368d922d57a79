"""Hostile requests: refused with a stable code in the A2App envelope, never a 500, and a
refusal that needs no upstream makes none.

The runtime serves the Django sample through the fault-injecting proxy, which records every
request that reaches the upstream, so each case can assert what the upstream was asked:
nothing at all, or reads only (the ref check), never a write. The last cases make the proxy
answer with error pages that echo the runtime's upstream credential in every spelling;
no form of it may reach an answer, the runtime's stderr, the audit file or the store.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.faultproxy import ECHO_CREDENTIAL, Fault, FaultProxy, credential_forms
from tests.fixtures.runtime import (
    KANBAN_DRF,
    REPO,
    GrantSpec,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_hostile_input_token"
GRANTS = (GrantSpec("cred_hostile", "hostile", ("*",), TOKEN),)
CARDS = "/api/collections/cards/records"
LISTS = "/api/collections/lists/records"
REF_TEXT = "a record id: no '/', '\\', '?', '#', dot segments or control characters"
FAN_OUT_LIMIT = "at most 100 record ids in one write"
NONE, READS = "none", "reads"  # what the upstream may see: nothing, or reads and no write
PAD = 100 * 1024


@dataclass(frozen=True)
class Hostile:
    name: str
    method: str
    path: str  # already percent-encoded, sent as it is
    body: bytes | None = None
    status: int = 400
    code: str = "invalid_json"
    upstream: str = NONE
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    token: str | None = TOKEN
    violations: tuple[tuple[str, str], ...] | None = None  # exactly these (code, field)
    alone: bool = False  # no `violations` at all (a body that is not one JSON object)
    field: str | None = None
    got: tuple[str, ...] | None = None  # invalid_query: the unknown parameter names
    expected: str | None = None  # text the first violation's `expected` contains
    also: tuple[tuple[int, str], ...] = ()  # other (status, code) the contract allows


def raw(text: str) -> bytes:
    return text.encode("utf-8")


def deep(levels: int) -> bytes:
    return raw('{"title": "deep", "board": ' + "[" * levels + "]" * levels + "}")


NINE = raw(json.dumps({
    "title": 123,  # invalid_string
    "priority": "bogus",  # invalid_enum
    "due": "tomorrow",  # invalid_daykey
    "done": "maybe",  # invalid_boolean
    "created": "2026-01-01T00:00:00Z",  # read_only_field
    "colour": "red",  # unknown_field
    "size": 3,  # unknown_field
    "tags": "tag_a",  # invalid_ref: not an array
    "list": {"id": "list_todo"},  # invalid_ref: not a record id
}))  # fmt: skip
NINE_CODES = (
    ("invalid_string", "title"), ("invalid_enum", "priority"), ("invalid_daykey", "due"),
    ("invalid_boolean", "done"), ("read_only_field", "created"), ("unknown_field", "colour"),
    ("unknown_field", "size"), ("invalid_ref", "tags"), ("invalid_ref", "list"),
)  # fmt: skip
TRAVERSALS = {
    "encoded-slash": "..%2F..%2Fboards%2Fboard_main",
    "double-encoded-slash": "..%252F..%252Fboards%252Fboard_main",
    "encoded-backslash": "..%5C..%5Cboards%5Cboard_main",
    "encoded-dots": "%2e%2e",
}


def number(token: str) -> Hostile:
    return Hostile(f"position-{token}", "POST", LISTS,
                   raw('{"title": "n", "position": ' + token + "}"),
                   code="invalid_number", violations=(("invalid_number", "position"),))  # fmt: skip


CASES = [
    number("NaN"),
    number("Infinity"),
    number("-Infinity"),
    number("1e400"),
    number('"Infinity"'),
    Hostile("lone-surrogate", "POST", LISTS, raw('{"title": "a\\ud800b"}'),
            code="invalid_string", violations=(("invalid_string", "title"),)),
    Hostile("nested-10000-deep", "POST", LISTS, deep(10_000), alone=True),
    Hostile("ref-holding-NaN", "POST", LISTS, raw('{"title": "r", "board": NaN}'),
            code="invalid_ref", violations=(("invalid_ref", "board"),), expected="a record id"),
    Hostile("invalid-utf8", "POST", CARDS, b'{"title": "caf\xc3\x28 \xff\xfe"}', alone=True),
    Hostile("malformed-json", "POST", CARDS, raw('{"title": "open'), alone=True),
    Hostile("array-body", "POST", CARDS, raw('[{"title": "in an array"}]'), alone=True),
    Hostile("form-encoded-body", "POST", CARDS, raw("title=form"), alone=True,
            content_type="application/x-www-form-urlencoded"),
    Hostile("duplicate-keys", "POST", CARDS, raw('{"title": "a", "title": "b"}'), alone=True,
            field="title"),
    Hostile("duplicate-keys-nested", "POST", CARDS,
            raw('{"title": "a", "tags": [], "x": {"k": 1, "k": 2}}'), alone=True, field="k"),
    Hostile("nine-problems", "POST", CARDS, NINE, code="invalid_string", violations=NINE_CODES),
    Hostile("string-for-list-ref", "POST", CARDS, raw('{"title": "t", "tags": "tag_a"}'),
            code="invalid_ref", violations=(("invalid_ref", "tags"),),
            expected="an array of record ids"),
    # dangling refs are looked up (reads) and reported in the same 400 as the rest
    Hostile("dangling-refs-with-other-violations", "POST", CARDS,
            raw('{"title": 5, "list": "list_nope", "tags": ["tag_nope"], "done": "no"}'),
            code="invalid_string", upstream=READS,
            violations=(("invalid_string", "title"), ("invalid_ref", "list"),
                        ("invalid_ref", "tags"), ("invalid_boolean", "done"))),
    Hostile("filter-100kB", "GET", f"{CARDS}?filter=title%3D%22{'a' * PAD}%22",
            code="invalid_filter", also=((400, "invalid_query"),)),
    Hostile("filter-20kB", "GET", f"{CARDS}?filter=title%3D%22{'a' * 20_000}%22",
            code="invalid_filter"),
    Hostile("sort-100kB", "GET", f"{CARDS}?sort={'-title,' * (PAD // 7)}title",
            code="invalid_filter", also=((400, "invalid_query"),)),
    Hostile("sort-one-100kB-name", "GET", f"{CARDS}?sort=-{'t' * PAD}", code="invalid_filter",
            also=((400, "invalid_query"),)),
    Hostile("mis-cased-Filter", "GET", f"{CARDS}?Filter=done%3Dtrue", code="invalid_query",
            got=("Filter",)),
    Hostile("mis-cased-perpage", "GET", f"{CARDS}?perpage=2", code="invalid_query",
            got=("perpage",)),
    Hostile("fields-undeclared", "GET", f"{CARDS}?fields=colour", code="invalid_filter"),
    Hostile("unknown-token-whoami", "GET", "/api/_a2app/whoami", status=401,
            code="agent_token_required", token="a2app_nobody_knows_this"),
    Hostile("unknown-token-read", "GET", CARDS, status=401, code="agent_token_required",
            token="a2app_nobody_knows_this"),
    Hostile("unknown-token-write", "POST", CARDS, raw('{"title": "t"}'), status=401,
            code="agent_token_required", token="a2app_nobody_knows_this"),
    *(Hostile(f"id-{name}-{verb.lower()}", verb, f"{CARDS}/{value}", status=404,
              code="record_not_found") for name, value in TRAVERSALS.items()
      for verb in ("GET", "DELETE")),
    *(Hostile(f"ref-{name}", "POST", CARDS, raw(json.dumps({"title": "t", "list": value})),
              code="invalid_ref", violations=(("invalid_ref", "list"),), expected=REF_TEXT)
      for name, value in TRAVERSALS.items()),
    Hostile("request-line-100kB", "GET", f"{CARDS}?page=1&pad={'p' * PAD}",
            code="invalid_query"),
    Hostile("header-70kB", "GET", "/api/_a2app", status=413, code="payload_too_large",
            headers=(("x-pad", "h" * 70 * 1024),)),
]  # fmt: skip


# ---------------------------------------------------------------- the stack


@dataclass(frozen=True)
class Answer:
    status_code: int
    header_items: list[tuple[str, str]]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


@dataclass
class Stack:
    sample: KanbanServer
    proxy: FaultProxy
    runtime: RuntimeServer
    baseline: dict[str, set[str]] = field(default_factory=dict)

    def held(self) -> dict[str, set[str]]:
        out = {}
        for entity in ("cards", "lists", "tags", "boards"):
            response = httpx.get(f"{self.sample.api}/{entity}/", params={"page_size": 1000},
                                 headers=self.sample.headers, timeout=30)  # fmt: skip
            out[entity] = {r["id"] for r in response.json()["results"]}
        return out

    def clean(self) -> dict[str, set[str]]:
        """Records a case made (it should have made none), deleted; returns them."""
        made = {e: ids - self.baseline[e] for e, ids in self.held().items()}
        for entity, ids in made.items():
            for record_id in ids:
                httpx.delete(f"{self.sample.api}/{entity}/{record_id}/",
                             headers=self.sample.headers, timeout=30)  # fmt: skip
        return {e: ids for e, ids in made.items() if ids}

    def send(self, case: Hostile) -> Answer:
        """Over http.client: httpx refuses to send a URL over 64 KiB, which some cases are."""
        headers = {"content-type": case.content_type, **dict(case.headers)}
        if case.token is not None:
            headers["x-a2app-token"] = case.token
        url = httpx.URL(self.runtime.url)
        conn = http.client.HTTPConnection(url.host, url.port, timeout=60)
        try:
            conn.request(case.method, case.path, body=case.body, headers=headers)
            response = conn.getresponse()
            return Answer(response.status, response.getheaders(), response.read())
        finally:
            conn.close()

    def secrets(self) -> list[str]:
        return credential_forms(f"Token {self.sample.token}")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    mapping = mapping_variant(
        KANBAN_DRF, tmp_path_factory.mktemp("hostile"), upstream__timeoutSeconds=5
    )
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    with (
        start_kanban() as sample,
        FaultProxy(sample) as proxy,
        start_runtime(mapping, proxy, grants=GRANTS, env=env) as runtime,
    ):
        stack = Stack(sample, proxy, runtime)
        stack.baseline = stack.held()
        yield stack


def envelope_problems(response: httpx.Response | Answer, status: int, code: str) -> list[str]:
    try:
        body = response.json()
    except ValueError:
        return [f"HTTP {response.status_code} without a JSON body: {response.text[:200]!r}"]
    problems = []
    if response.status_code == 500:
        problems.append("a 500")
    if not isinstance(body, dict) or body.get("a2app") is not True or body.get("ok") is not False:
        problems.append(f"not the A2App error envelope: {str(body)[:300]}")
    elif (response.status_code, body.get("code")) != (status, code):
        problems.append(f"answered {response.status_code} {body.get('code')}, expected {status} "
                        f"{code}: {str(body.get('message'))[:200]}")  # fmt: skip
    return problems


def case_problems(case: Hostile, response: Answer) -> list[str]:
    allowed = [(case.status, case.code), *case.also]
    problems = envelope_problems(response, case.status, case.code)
    if problems and any(not envelope_problems(response, s, c) for s, c in allowed):
        problems = []
    if problems:
        return problems
    body = response.json()
    violations = body.get("violations")
    if case.alone and violations:
        problems.append(f"violations beside invalid_json: {violations}")
    if case.violations is not None:
        got = sorted((v.get("code"), v.get("field")) for v in violations or [])
        if got != sorted(case.violations):
            problems.append(f"violations {got}, expected {sorted(case.violations)}")
        elif (body.get("code"), body.get("field")) != tuple(
            violations[0][k] for k in ("code", "field")
        ):
            problems.append("the top level is not the first violation")
    if case.field is not None and body.get("field") != case.field:
        problems.append(f"field {body.get('field')!r}, expected {case.field!r}")
    if case.got is not None and body.get("got") != list(case.got):
        problems.append(f"got {body.get('got')!r}, expected {list(case.got)!r}")
    if case.got is not None and not (
        isinstance(body.get("allowed"), list) and "filter" in body["allowed"]
    ):
        problems.append(f"allowed {body.get('allowed')!r} does not list the valid names")
    if case.expected is not None:
        first = (violations or [body])[0]
        if case.expected not in str(first.get("expected")):
            problems.append(f"expected {first.get('expected')!r}, wanted {case.expected!r}")
    return problems


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_request(stack: Stack, case: Hostile) -> None:
    stack.proxy.forget()
    response = stack.send(case)
    problems = case_problems(case, response)
    seen = stack.proxy.requests
    if case.upstream == NONE and seen:
        problems.append(f"{len(seen)} upstream requests, e.g. {seen[0].method} {seen[0].path}")
    writes = [s for s in seen if s.method not in ("GET", "HEAD")]
    if writes:
        problems.append(f"a write reached the upstream: {writes[0].method} {writes[0].path}")
    made = stack.clean()
    if made:
        problems.append(f"the upstream now holds new records: {made}")
    assert not problems, "; ".join(problems)


@dataclass(frozen=True)
class Echo:
    name: str
    method: str
    path: str  # the runtime's path
    upstream: str  # the upstream request the proxy answers with the echoing page
    status: int  # the page's status
    code: str  # the runtime's answer
    body: dict[str, Any] | None = None


ECHOES = [
    Echo("500-page-on-a-list", "GET", CARDS, r"/api/cards/", 500, "upstream_error"),
    Echo("500-page-on-a-get", "GET", f"{CARDS}/card_seed", r"/api/cards/card_seed/", 500,
         "upstream_error"),
    Echo("500-page-on-a-create", "POST", CARDS, r"/api/cards/", 500, "upstream_error",
         {"title": "echo"}),
    Echo("400-page-on-a-create", "POST", CARDS, r"/api/cards/", 400, "upstream_rejected",
         {"title": "echo"}),
    Echo("400-page-on-an-update", "PATCH", f"{CARDS}/card_seed", r"/api/cards/card_seed/", 400,
         "upstream_rejected", {"title": "echo"}),
]  # fmt: skip


def _leaks(text: str, forms: list[str]) -> list[str]:
    return [form for form in forms if form in text]


def _store_text(runtime: RuntimeServer) -> str:
    path = Path(runtime.store_url.removeprefix("sqlite:///"))
    parts = [p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file()]
    return b"".join(parts).decode("latin-1")


@pytest.mark.parametrize("echo", ECHOES, ids=lambda e: e.name)
def test_an_echoed_credential_reaches_no_answer_log_or_audit(stack: Stack, echo: Echo) -> None:
    forms = stack.secrets()
    fault = Fault(ECHO_CREDENTIAL, method=echo.method, path=echo.upstream,
                  status=echo.status)  # fmt: skip
    stack.proxy.forget()
    stack.proxy.set(fault)
    try:
        response = httpx.request(echo.method, stack.runtime.url + echo.path, json=echo.body,
                                 headers={"x-a2app-token": TOKEN}, timeout=30)  # fmt: skip
    finally:
        stack.proxy.clear()
    assert stack.proxy.hits == 1, "the echoing page was never served"
    problems = envelope_problems(response, 502 if echo.status >= 500 else 400, echo.code)
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.multi_items())
    where = {
        "the answer": response.text,
        "the answer's headers": headers,
        "the runtime's stderr": stack.runtime.stderr(),
        "the store": _store_text(stack.runtime),
    }
    audit_file = stack.runtime.state_dir / "audit-kanban-drf.jsonl"
    if audit_file.exists():
        where["the audit file"] = audit_file.read_text(errors="replace")
    for place, text in where.items():
        leaked = _leaks(text, forms)
        if leaked:
            problems.append(f"{len(leaked)} form(s) of the upstream token in {place}: {leaked}")
    stack.clean()
    assert not problems, "; ".join(problems)


def test_a_thousand_dangling_refs_are_refused_unread_and_stall_nothing(stack: Stack) -> None:
    ids = [f"tag_missing_{n:04d}" for n in range(1000)]
    stack.proxy.forget()
    answer: dict[str, httpx.Response] = {}

    def big() -> None:
        answer["big"] = httpx.post(stack.runtime.url + CARDS, json={"title": "t", "tags": ids},
                                   headers={"x-a2app-token": TOKEN}, timeout=120)  # fmt: skip

    worker = threading.Thread(target=big)
    worker.start()
    try:
        identity = httpx.get(stack.runtime.url + "/api/_a2app", timeout=15)
    finally:
        worker.join(120)
    assert identity.status_code == 200, identity.text  # answered meanwhile, not stalled
    response = answer["big"]
    problems = envelope_problems(response, 400, "invalid_ref")
    if not problems:
        violations = response.json().get("violations") or []
        fields = [(v.get("code"), v.get("field")) for v in violations]
        if fields != [("invalid_ref", "tags")] or FAN_OUT_LIMIT not in str(
            violations[0].get("expected")
        ):
            problems.append(f"violations {violations}, expected one naming {FAN_OUT_LIMIT!r}")
    reads = len(stack.proxy.requests)
    if reads:
        problems.append(f"{reads} upstream requests before refusing")
    stack.clean()
    assert not problems, "; ".join(problems)
