"""Upstream faults x actions: the runtime's answer, then the upstream's own state, then a retry.

A fault-injecting proxy (tests/fixtures/faultproxy.py) sits between the runtime and the real
Django sample and applies one fault at a time to the requests of one action. Each case:

1. resets the sample to a known baseline (read and written directly, never through the proxy);
2. sends one action through the runtime (create, update, delete, a paged list, a walked list,
   a get) with a fresh Idempotency-Key;
3. checks the answer: status, code, `outcomeUnknown`, `id`, violations;
4. reads the sample directly and checks exactly which records exist and what they hold;
5. for creates and updates, removes the fault and sends the same request with the same key:
   the key is kept wherever the write may have landed (409 `duplicate_request`), freed where
   nothing can have been written, and no retry ever makes a second record.

Rules that hold for every case, whatever the fault: no 200 for a write that did not land as
asked, no duplicate record, no 5xx other than the upstream_* codes (never a 500), and a listing
that answers 200 holds every record the upstream holds.

`python -m tests.runtime.web.test_fault_suite` (or `pytest -s` on this module) prints the table of
every case as Markdown at the end; A2APP_FAULT_TABLE=<path> also writes it to that file.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.fixtures.faultproxy import (
    AUTH_EXPIRY,
    CAST_ENUM,
    CAST_NUMBER,
    CAST_STRING,
    CUT_BODY,
    DOWN,
    DROP_AFTER_SEND,
    DROP_FIELD,
    ERROR_AFTER,
    ERROR_BEFORE,
    FOREIGN_ID,
    HANG,
    HTML,
    IGNORE_FILTER,
    NEXT_404,
    NEXT_TO,
    RATE_LIMIT,
    REDIRECT,
    SHORT_PAGE,
    SLOW,
    SOFT_DELETE,
    Canary,
    Fault,
    FaultProxy,
)
from tests.fixtures.runtime import (
    KANBAN_DRF,
    REPO,
    GrantSpec,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, start_kanban

TOKEN = "a2app_fault_suite_token"
AGENT = {"x-a2app-token": TOKEN, "x-a2app-agent": "fault-suite"}
GRANTS = (GrantSpec("cred_fault_suite", "fault-suite", ("*",), TOKEN),)
TIMEOUT = 1  # upstream.timeoutSeconds: a hang costs one second
PAGE = 2  # pagination.maxSize: the four baseline cards take two upstream pages
RETRY_AFTER = 7
TITLE = "Overwritten under a fault"
DUE = "2027-03-04"
SEED_CARD = "card_seed"
CARD_FIELDS = ("title", "list", "priority", "due", "done", "tags")
LIST_FIELDS = ("title", "position", "board")
# Codes the runtime may answer with a 5xx; anything else there is a defect.
UPSTREAM_5XX = {
    "upstream_unavailable": 502,
    "upstream_timeout": 504,
    "upstream_error": 502,
    "upstream_auth_failed": 502,
}
BASE_CARDS = [
    {"title": "Second card", "list": "list_doing", "priority": "medium", "done": False},
    {"title": "Third card", "list": "list_todo", "priority": "none", "done": True},
    {"title": "Fourth card", "list": "list_doing", "priority": "urgent", "done": False},
]


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Action:
    name: str  # create | update | delete | list | scan | get
    entity: str  # the sample's collection: cards or lists
    method: str  # the upstream request the fault hits ...
    upstream: str  # ... and its path (a regular expression)
    body: dict[str, Any] = field(default_factory=dict, compare=False)
    target: str | None = None  # the record an update or get names

    @property
    def is_write(self) -> bool:
        return self.name in ("create", "update")


CARD_BODY = {"title": TITLE, "due": DUE, "priority": "high"}
LIST_BODY = {"title": TITLE, "position": 2.75, "board": "board_main"}
CREATE = Action("create", "cards", "POST", r"/api/cards/", CARD_BODY)
UPDATE = Action("update", "cards", "PATCH", rf"/api/cards/{SEED_CARD}/", CARD_BODY, SEED_CARD)
DELETE = Action("delete", "cards", "DELETE", r"/api/cards/[^/]+/")
LIST = Action("list", "cards", "GET", r"/api/cards/")  # filter=done=false: pages asked by number
SCAN = Action("scan", "cards", "GET", r"/api/cards/")  # filter=done!=true: next links walked
GET = Action("get", "cards", "GET", rf"/api/cards/{SEED_CARD}/", target=SEED_CARD)
LIST_CREATE = Action("create", "lists", "POST", r"/api/lists/", LIST_BODY)
LIST_UPDATE = Action(
    "update", "lists", "PATCH", r"/api/lists/list_doing/", {"position": 2.75}, "list_doing"
)
FILTERS = {"list": "done = false", "scan": "done != true"}

# What the upstream holds after the first call.
NOTHING, ASKED, ALTERED, GONE, KEPT, UNCHANGED = (
    "nothing", "as asked", "altered", "deleted", "kept", "unchanged",
)  # fmt: skip
# What a retry with the same key must get.
DUPLICATE, FRESH = "409 duplicate_request", "200, written once"


@dataclass(frozen=True)
class Expect:
    answers: tuple[tuple[int, str | None], ...]  # allowed (status, code); a 200 must be true
    unknown: bool | None = None  # outcomeUnknown: must be true, must be absent, or either
    id: bool = False  # the top-level id must name the record written
    landed: str = UNCHANGED
    retry: str | None = None

    def shown(self) -> str:
        text = " or ".join(f"{s} {c}" if c else f"{s} complete" for s, c in self.answers)
        return text + (", outcomeUnknown" if self.unknown else "") + (", id" if self.id else "")


@dataclass(frozen=True)
class Case:
    fault: str  # the row name in the table
    action: Action
    inject: Fault
    expect: Expect
    stored: dict[str, Any] = field(default_factory=dict)  # what an altered write holds instead

    @property
    def id(self) -> str:
        entity = "" if self.action.entity == "cards" else f"-{self.action.entity}"
        return f"{self.fault}-{self.action.name}{entity}"


def refused(status: int, code: str, *, retry: str | None = FRESH) -> Expect:
    """Nothing was or can have been written: the key is free again."""
    return Expect(((status, code),), unknown=False, landed=NOTHING, retry=retry)


def unknown(status: int, code: str, landed: str) -> Expect:
    """The write may have landed: outcomeUnknown, and the key stays taken."""
    return Expect(((status, code),), unknown=True, landed=landed, retry=DUPLICATE)


NOT_STORED = Expect(((422, "not_stored"),), id=True, landed=ALTERED, retry=DUPLICATE)


def read(status: int, code: str) -> Expect:
    return Expect(((status, code),))


def listing(*refusals: str) -> Expect:
    """Complete or refused: a 200 holds every record, or the walk is refused with one of these."""
    return Expect(((200, None), *((UPSTREAM_5XX.get(c, 502), c) for c in refusals)))


def delete(status: int, code: str, landed: str) -> Expect:
    return Expect(((status, code),), landed=landed)


def family(name: str, inject: Fault, rows: dict[Action, Expect]) -> list[Case]:
    return [Case(name, action, inject, expect) for action, expect in rows.items()]


CASES: list[Case] = [
    *family("down", Fault(DOWN), {
        CREATE: refused(502, "upstream_unavailable"),
        UPDATE: refused(502, "upstream_unavailable"),
        DELETE: delete(502, "upstream_unavailable", KEPT),
        LIST: read(502, "upstream_unavailable"),
        GET: read(502, "upstream_unavailable"),
    }),
    *family("hang", Fault(HANG), {
        CREATE: unknown(504, "upstream_timeout", NOTHING),
        UPDATE: unknown(504, "upstream_timeout", NOTHING),
        DELETE: delete(504, "upstream_timeout", KEPT),
        LIST: read(504, "upstream_timeout"),
        GET: read(504, "upstream_timeout"),
    }),
    *family("500-before-forwarding", Fault(ERROR_BEFORE), {
        CREATE: unknown(502, "upstream_error", NOTHING),
        UPDATE: unknown(502, "upstream_error", NOTHING),
        DELETE: delete(502, "upstream_error", KEPT),
        LIST: read(502, "upstream_error"),
        GET: read(502, "upstream_error"),
    }),
    *family("500-after-forwarding", Fault(ERROR_AFTER), {
        CREATE: unknown(502, "upstream_error", ASKED),
        UPDATE: unknown(502, "upstream_error", ASKED),
        DELETE: delete(502, "upstream_error", GONE),
        LIST: read(502, "upstream_error"),
        GET: read(502, "upstream_error"),
    }),
    *family("html-200", Fault(HTML), {
        CREATE: unknown(502, "upstream_error", NOTHING),
        UPDATE: unknown(502, "upstream_error", NOTHING),
        DELETE: delete(502, "upstream_error", KEPT),
        LIST: read(502, "upstream_error"),
        GET: read(502, "upstream_error"),
    }),
    *family("429-retry-after", Fault(RATE_LIMIT, seconds=RETRY_AFTER), {
        CREATE: refused(429, "upstream_rate_limited"),
        UPDATE: refused(429, "upstream_rate_limited"),
        DELETE: delete(429, "upstream_rate_limited", KEPT),
        LIST: read(429, "upstream_rate_limited"),
        GET: read(429, "upstream_rate_limited"),
    }),
    *family("dropped-after-send", Fault(DROP_AFTER_SEND), {
        CREATE: unknown(502, "upstream_unavailable", ASKED),
        UPDATE: unknown(502, "upstream_unavailable", ASKED),
        DELETE: delete(502, "upstream_unavailable", GONE),
        LIST: read(502, "upstream_unavailable"),
        GET: read(502, "upstream_unavailable"),
    }),
    *family("half-a-body", Fault(CUT_BODY), {
        CREATE: unknown(502, "upstream_unavailable", ASKED),
        UPDATE: unknown(502, "upstream_unavailable", ASKED),
        GET: read(502, "upstream_unavailable"),
    }),
    # 302 to a canary on another local port: never followed, never contacted
    *family("redirect-off-base", Fault(REDIRECT), {
        CREATE: unknown(502, "upstream_error", NOTHING),
        UPDATE: unknown(502, "upstream_error", NOTHING),
        DELETE: delete(502, "upstream_error", KEPT),
        LIST: read(502, "upstream_error"),
        GET: read(502, "upstream_error"),
    }),
    # the write lands, every request after it is answered 401
    *family("auth-expiry-after-write", Fault(AUTH_EXPIRY), {
        CREATE: Expect(((502, "upstream_auth_failed"),), id=True, landed=ASKED, retry=DUPLICATE),
        UPDATE: Expect(((502, "upstream_auth_failed"),), id=True, landed=ASKED, retry=DUPLICATE),
        DELETE: delete(502, "upstream_auth_failed", GONE),
        LIST: listing("upstream_auth_failed"),
        SCAN: listing("upstream_auth_failed"),
    }),
    Case("soft-delete", DELETE, Fault(SOFT_DELETE), delete(502, "upstream_error", KEPT)),
    # the create answers an integer id where the mapping declares string ids
    Case("id-of-another-type", CREATE, Fault(FOREIGN_ID, value=424242),
         Expect(((422, "not_stored"), (502, "upstream_error")), landed=ASKED, retry=DUPLICATE)),
    # silently altered writes: 422 not_stored naming the record, key kept
    Case("dropped-field", CREATE, Fault(DROP_FIELD, field="due"), NOT_STORED, {"due": None}),
    Case("dropped-field", UPDATE, Fault(DROP_FIELD, field="due"), NOT_STORED, {"due": None}),
    Case("ignored-field", UPDATE, Fault(DROP_FIELD, field="title"), NOT_STORED,
         {"title": "Welcome card"}),
    Case("string-cut-to-8", CREATE, Fault(CAST_STRING, field="title"), NOT_STORED,
         {"title": TITLE[:8]}),
    Case("string-cut-to-8", UPDATE, Fault(CAST_STRING, field="title"), NOT_STORED,
         {"title": TITLE[:8]}),
    Case("number-rounded", LIST_CREATE, Fault(CAST_NUMBER, field="position"), NOT_STORED,
         {"position": 3.0}),
    Case("number-rounded", LIST_UPDATE, Fault(CAST_NUMBER, field="position"), NOT_STORED,
         {"position": 3.0}),
    Case("enum-replaced", CREATE, Fault(CAST_ENUM, field="priority", value="none"), NOT_STORED,
         {"priority": "none"}),
    Case("enum-replaced", UPDATE, Fault(CAST_ENUM, field="priority", value="none"), NOT_STORED,
         {"priority": "none"}),
    # listings: complete or refused, never a 200 with part of the set
    *family("ignored-filter", Fault(IGNORE_FILTER), {LIST: listing(), SCAN: listing()}),
    *family("slow-second-page", Fault(SLOW, nth=2, seconds=TIMEOUT + 1.5), {
        LIST: listing("upstream_timeout", "upstream_error"),
        SCAN: listing("upstream_timeout", "upstream_error"),
    }),
    *family("page-missing-a-record", Fault(SHORT_PAGE, nth=1), {
        LIST: listing("upstream_error"), SCAN: listing("upstream_error"),
    }),
    *family("next-link-404", Fault(NEXT_404, nth=1), {
        LIST: listing("upstream_error"), SCAN: listing("upstream_error"),
    }),
    *family("next-link-off-base", Fault(NEXT_TO, nth=1), {
        LIST: listing("upstream_error"), SCAN: listing("upstream_error"),
    }),
]  # fmt: skip


# ---------------------------------------------------------------- the stack


@dataclass
class Row:
    """What one case saw, for the table printed at the end."""

    case: Case
    answer: str = ""
    upstream: str = ""
    retry: str = ""
    problems: list[str] = field(default_factory=list)


@dataclass
class Stack:
    sample: KanbanServer
    proxy: FaultProxy
    canary: Canary
    runtime: RuntimeServer
    baseline: dict[str, dict[str, dict[str, Any]]]
    rows: list[Row] = field(default_factory=list)

    # -- the sample, read and written directly

    def direct(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(
            method, self.sample.api + path, headers=self.sample.headers, timeout=30, **kwargs
        )

    def truth(self) -> dict[str, dict[str, dict[str, Any]]]:
        held: dict[str, dict[str, dict[str, Any]]] = {}
        for entity, names in (("cards", CARD_FIELDS), ("lists", LIST_FIELDS)):
            response = self.direct("GET", f"/{entity}/", params={"page_size": 1000})
            assert response.status_code == 200, response.text
            held[entity] = {r["id"]: {n: r[n] for n in names} for r in response.json()["results"]}
        return held

    def reset(self) -> None:
        """Back to the baseline: extra records deleted, changed ones written back."""
        now = self.truth()
        for entity in ("cards", "lists"):
            for record_id, values in now[entity].items():
                want = self.baseline[entity].get(record_id)
                if want is None:
                    assert self.direct("DELETE", f"/{entity}/{record_id}/").status_code == 204
                elif values != want:
                    assert self.direct("PATCH", f"/{entity}/{record_id}/", json=want).is_success
        assert self.truth() == self.baseline

    def doomed(self) -> str:
        response = self.direct("POST", "/cards/", json={"title": "Doomed card"})
        assert response.status_code == 201, response.text
        record_id: str = response.json()["id"]
        return record_id

    # -- the runtime

    def send(self, action: Action, key: str, record_id: str | None) -> httpx.Response:
        base = f"{self.runtime.url}/api/collections/{action.entity}/records"
        headers = {**AGENT, "idempotency-key": key}
        if action.name == "create":
            return httpx.post(base, json=action.body, headers=headers, timeout=30)
        if action.name == "update":
            url = f"{base}/{action.target}"
            return httpx.patch(url, json=action.body, headers=headers, timeout=30)
        if action.name == "delete":
            return httpx.delete(f"{base}/{record_id}", headers=headers, timeout=30)
        if action.name == "get":
            return httpx.get(f"{base}/{action.target}", headers=headers, timeout=30)
        params = {"filter": FILTERS[action.name]}
        return httpx.get(base, params=params, headers=headers, timeout=30)


def suite_mapping(directory: Path) -> Path:
    """kanban-drf with a 1 s timeout, pages of two, and `done =` marked proven, so that
    `done = false` is paged by the upstream (pages asked by number) while `done != true`
    is walked here (next links followed)."""
    mapping = mapping_variant(KANBAN_DRF, directory, upstream__timeoutSeconds=TIMEOUT)
    doc = yaml.safe_load(mapping.read_text())
    doc["upstream"]["pagination"]["maxSize"] = PAGE
    doc["entities"]["cards"]["filter"]["done"] = {"=": {"param": "done", "proven": True}}
    mapping.write_text(yaml.safe_dump(doc, sort_keys=False))
    return mapping


def _baseline_of(sample: KanbanServer) -> None:
    for values in BASE_CARDS:
        response = httpx.post(sample.api + "/cards/", json=values, headers=sample.headers)
        assert response.status_code == 201, response.text


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    mapping = suite_mapping(tmp_path_factory.mktemp("fault-suite"))
    # The runtime is a subprocess: it must import this checkout's code, not an installed one.
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    with (
        start_kanban() as sample,
        FaultProxy(sample) as proxy,
        Canary() as canary,
        start_runtime(mapping, proxy, grants=GRANTS, env=env) as runtime,
    ):
        _baseline_of(sample)
        probe = Stack(sample, proxy, canary, runtime, {})
        stack = Stack(sample, proxy, canary, runtime, probe.truth())
        yield stack
        table = markdown(stack.rows)
        print("\n" + table)
        if out := os.environ.get("A2APP_FAULT_TABLE"):
            Path(out).write_text(table + "\n")


# ---------------------------------------------------------------- checks


def _same(a: Any, b: Any) -> bool:
    """Numbers compare as numbers (3 == 3.0); everything else exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    return bool(a == b)


def _differs(held: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    return {k: held.get(k) for k, v in wanted.items() if not _same(held.get(k), v)}


def describe_state(
    stack: Stack, case: Case, record_id: str | None
) -> tuple[str, dict[str, dict[str, dict[str, Any]]]]:
    """The upstream's state in words, and as read."""
    now = stack.truth()
    action, base = case.action, stack.baseline
    entity = action.entity
    touched = {record_id, action.target}
    new = [v for k, v in now[entity].items() if k not in base[entity] and k != record_id]
    rest = {e: {k: v for k, v in now[e].items() if k in base[e] and k not in touched} for e in now}
    kept = {e: {k: v for k, v in base[e].items() if k not in touched} for e in base}
    suffix = "" if rest == kept else ", other records changed!"
    if action.name == "create":
        mine = [now[entity][record_id]] if record_id in now[entity] else []
        made = mine + new
        if not made:
            return NOTHING + suffix, now
        if len(made) > 1:
            return f"{len(made)} records: DUPLICATE" + suffix, now
        diff = _differs(made[0], action.body)
        return (ASKED if not diff else f"{ALTERED}: {_fmt(diff)}") + suffix, now
    if new:
        suffix += f", {len(new)} new record(s)!"
    if action.name == "update":
        held = now[entity][action.target or ""]
        if held == base[entity][action.target or ""]:
            return NOTHING + suffix, now
        diff = _differs(held, action.body)
        return (ASKED if not diff else f"{ALTERED}: {_fmt(diff)}") + suffix, now
    if action.name == "delete":
        return (GONE if record_id not in now["cards"] else KEPT) + suffix, now
    return (UNCHANGED if now == base else "changed!"), now


def _fmt(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def check_answer(case: Case, response: httpx.Response, record_id: str | None) -> list[str]:
    problems: list[str] = []
    expect = case.expect
    try:
        body = response.json()
    except ValueError:
        return [f"answer is not JSON: HTTP {response.status_code} {response.text[:200]!r}"]
    status, code = response.status_code, body.get("code") if isinstance(body, dict) else None
    allowed = [(s, c) for s, c in expect.answers]
    if (status, code if status != 200 else None) not in allowed:
        problems.append(f"answered {status} {code}, expected {expect.shown()}")
    if status >= 500 and UPSTREAM_5XX.get(code or "") != status:
        problems.append(f"a {status} that is no upstream_* code: {code}")
    if status != 200:
        if not (body.get("a2app") is True and body.get("ok") is False):
            problems.append(f"not the A2App error envelope: {body}")
        got_unknown = body.get("outcomeUnknown") is True
        if expect.unknown is True and not got_unknown:
            problems.append("outcomeUnknown missing (the write may have landed)")
        if expect.unknown is False and "outcomeUnknown" in body:
            problems.append(f"outcomeUnknown={body['outcomeUnknown']!r} on a write never sent")
        if expect.id and body.get("id") != record_id:
            problems.append(f"id {body.get('id')!r}, expected {record_id!r}")
        if code == "upstream_rate_limited" and body.get("retryAfterSeconds") != RETRY_AFTER:
            problems.append(f"retryAfterSeconds {body.get('retryAfterSeconds')!r}")
        if (status, code) == (422, "not_stored") and case.stored:
            problems += check_violations(case, body.get("violations"))
    return problems


def check_violations(case: Case, violations: Any) -> list[str]:
    want = [
        {"code": "not_stored", "field": k, "expected": case.action.body[k], "got": v}
        for k, v in case.stored.items()
    ]
    if not isinstance(violations, list) or len(violations) != len(want):
        return [f"violations {violations!r}, expected {want!r}"]
    for got, wanted in zip(violations, want, strict=True):
        if not all(_same(got.get(k), v) for k, v in wanted.items()):
            return [f"violations {violations!r}, expected {want!r}"]
    return []


def check_state(case: Case, state: str, answer: httpx.Response) -> list[str]:
    landed = case.expect.landed
    if landed == ALTERED:
        landed = f"{ALTERED}: {_fmt(case.stored)}"
    if case.action.is_write and answer.status_code == 200 and state != ASKED:
        return [f"FALSE SUCCESS: 200 while the upstream holds {state!r}"]
    if state != landed:
        return [f"upstream holds {state!r}, expected {landed!r}"]
    return []


def check_listing(stack: Stack, response: httpx.Response, now: Any) -> list[str]:
    if response.status_code != 200:
        return []
    wanted = {k for k, v in now["cards"].items() if not v["done"]}
    doc = response.json()
    got = {r["id"] for r in doc.get("items", [])}
    if got != wanted or doc.get("totalItems") != len(wanted):
        return [f"200 with {sorted(got)} (totalItems {doc.get('totalItems')}), "
                f"the upstream holds {sorted(wanted)}: a partial listing"]  # fmt: skip
    return []


def check_get(stack: Stack, response: httpx.Response) -> list[str]:
    if response.status_code != 200:
        return []
    held = stack.baseline["cards"][SEED_CARD]
    got = {k: response.json().get(k) for k in CARD_FIELDS}
    return [] if got == held else [f"200 with {got}, the upstream holds {held}"]


def check_retry(
    stack: Stack, case: Case, first: httpx.Response, key: str, record_id: str | None
) -> tuple[str, list[str]]:
    """The fault is gone; the same request with the same key."""
    again = stack.send(case.action, key, record_id)
    body = again.json()
    shown = f"{again.status_code} {body.get('code', '')}".strip()
    if body.get("outcomeUnknown"):
        shown += ", outcomeUnknown"
    state, _ = describe_state(stack, case, record_id)
    problems: list[str] = []
    if "DUPLICATE" in state:
        problems.append(f"DUPLICATE after the retry: {state}")
    if case.expect.retry == DUPLICATE:
        if (again.status_code, body.get("code")) != (409, "duplicate_request"):
            problems.append(f"retry answered {shown}, expected 409 duplicate_request (key kept)")
        else:
            first_body = first.json()
            if case.expect.id and body.get("id") != record_id:
                problems.append(f"retry 409 with id {body.get('id')!r}, expected {record_id!r}")
            unknown_first = case.expect.unknown or first_body.get("outcomeUnknown") is True
            if unknown_first and body.get("outcomeUnknown") is not True:
                problems.append("retry 409 without outcomeUnknown after an unknown outcome")
    elif case.expect.retry == FRESH and (again.status_code != 200 or state != ASKED):
        problems.append(
            f"retry answered {shown} with the upstream {state!r}; expected "
            "200 and the write landed once (the key was free)"
        )
    return f"{shown}; upstream {state}", problems


# ---------------------------------------------------------------- the test


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fault(stack: Stack, case: Case) -> None:
    row = Row(case)
    stack.rows.append(row)
    stack.proxy.clear()
    stack.reset()
    action = case.action
    record_id = stack.doomed() if action.name == "delete" else action.target
    inject = replace(case.inject, method=action.method, path=action.upstream)
    if inject.kind in (REDIRECT, NEXT_TO):
        inject = replace(inject, value=f"{stack.canary.url}/api/{action.entity}/?page=2")
    canary_before = stack.canary.connections
    key = f"fault-{uuid.uuid4().hex}"
    stack.proxy.forget()
    stack.proxy.set(inject)
    try:
        response = stack.send(action, key, record_id)
    finally:
        stack.proxy.clear()
    hits = stack.proxy.hits
    body = response.json() if response.headers.get("content-type", "").startswith("app") else {}
    if action.name == "create":
        # the record the write made, if any: read from the sample, not from the answer
        made = [k for k in stack.truth()[action.entity] if k not in stack.baseline[action.entity]]
        record_id = made[0] if len(made) == 1 else None
    row.answer = f"{response.status_code} {body.get('code', '')}".strip()
    if response.status_code == 200 and action.name in ("list", "scan"):
        row.answer += f", {len(body['items'])} items, totalItems {body['totalItems']}"
    if isinstance(body, dict) and body.get("outcomeUnknown"):
        row.answer += ", outcomeUnknown"
    if isinstance(body, dict) and body.get("id"):
        row.answer += f", id {'= record' if body.get('id') == record_id else repr(body['id'])}"
    problems = row.problems
    if hits == 0 and inject.kind != DOWN:
        problems.append("the fault never hit a request: the case proves nothing")
    if case.id.startswith("id-of-another-type") and response.status_code == 422:
        # not_stored names the id the upstream answered with; the read-back found nothing
        problems += [] if body.get("id") == "424242" else [f"id {body.get('id')!r}"]
        problems += check_answer(replace(case, expect=replace(case.expect, id=False)),
                                 response, record_id)  # fmt: skip
    else:
        problems += check_answer(case, response, record_id)
    if TOKEN in response.text or stack.sample.token in response.text:
        problems.append("a token in the answer")
    state, now = describe_state(stack, case, record_id)
    row.upstream = state
    problems += check_state(case, state, response)
    if action.name in ("list", "scan"):
        problems += check_listing(stack, response, now)
    if action.name == "get":
        problems += check_get(stack, response)
    if stack.canary.connections != canary_before:
        problems.append(f"the canary off the base was contacted: {stack.canary.requests}")
    if case.expect.retry is not None:
        row.retry, retry_problems = check_retry(stack, case, response, key, record_id)
        problems += retry_problems
    assert not problems, f"{case.id}: " + "; ".join(problems)


def test_the_two_listings_take_two_paths(stack: Stack) -> None:
    """Without a fault: `list` is paged by the upstream, `scan` walked here; both complete."""
    stack.proxy.clear()
    stack.reset()
    for action, pushed in ((LIST, True), (SCAN, False)):
        stack.proxy.forget()
        response = stack.send(action, f"plain-{uuid.uuid4().hex}", None)
        assert check_listing(stack, response, stack.baseline) == [], response.text
        asked = [dict(s.params) for s in stack.proxy.requests if s.path == "/api/cards/"]
        assert [a.get("page") for a in asked] == ["1", "2"], asked
        assert all(("done" in a) is pushed for a in asked), asked


@pytest.mark.parametrize(("action", "again"), [(GET, True), (UPDATE, False)], ids=["get", "update"])
def test_a_connection_dropped_once_is_tried_again_only_for_a_read(
    stack: Stack, action: Action, again: bool
) -> None:
    """A server may close a kept-alive connection after an error answer; the next request
    on it meets the close. A read is sent once more; a write never (it may have landed)."""
    stack.proxy.clear()
    stack.reset()
    stack.proxy.forget()
    stack.proxy.set(Fault(DROP_AFTER_SEND, method=action.method, path=action.upstream, nth=1))
    try:
        response = stack.send(action, f"drop-once-{uuid.uuid4().hex}", action.target)
    finally:
        stack.proxy.clear()
    reached = [s for s in stack.proxy.requests if s.method == action.method]
    if again:
        assert response.status_code == 200, response.text
        assert len(reached) == 2 and reached[0].faulted and not reached[1].faulted
    else:
        assert response.status_code == 502 and response.json()["code"] == "upstream_unavailable"
        assert len(reached) == 1


# ---------------------------------------------------------------- the figures


def markdown(rows: list[Row]) -> str:
    lines = [
        "| fault | action | expected | runtime answered | upstream holds | retry, same key | |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        case = row.case
        action = case.action.name + ("" if case.action.entity == "cards" else " (lists)")
        verdict = "ok" if not row.problems else "FAIL: " + "; ".join(row.problems)
        retry = row.retry or ("n/a" if case.expect.retry is None else "")
        cells = [case.fault, action, case.expect.shown(), row.answer, row.upstream, retry, verdict]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    failed = sum(1 for r in rows if r.problems)

    def count(word: str) -> int:
        return sum(1 for r in rows if any(word in p for p in r.problems))

    lines.append("")
    lines.append(f"{len(rows)} cases, {len(rows) - failed} as the contract says, {failed} not. "
                 f"False successes: {count('FALSE SUCCESS')}; duplicates: {count('DUPLICATE')}; "
                 f"5xx outside the upstream_* codes: {count('no upstream_* code')}; "
                 f"partial listings answered 200: {count('a partial listing')}.")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q", "-s", "-p", "no:cacheprovider"]))
