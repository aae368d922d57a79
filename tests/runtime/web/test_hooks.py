"""Inbound webhooks over HTTP: deliveries signed by the independent `standardwebhooks`
package (and, for the plain header scheme, by Python's `hmac` module) raise one event each;
unsigned, badly signed, stale and replayed deliveries raise nothing, and the secret shows
nowhere."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import logging
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

import pytest
from standardwebhooks.webhooks import Webhook

from runtime.mapping import MappingError, load_document
from runtime.service import RuntimeState, ServeOptions, build_state
from runtime.store import Store
from runtime.upstream import UpstreamClient
from runtime.web import create_app

ROOT = Path(__file__).resolve().parents[3]
KANBAN = yaml.safe_load((ROOT / "mappings" / "conformance-kanban.yaml").read_text())
# canaries: neither may appear in any answer, log line or audit entry
WHSEC = "whsec_" + base64.b64encode(b"canary-key-4c1f9a7e2b3d5f60").decode()
PLAIN = "canary-plain-8e2d41b07c"
TOKEN = {"x-a2app-token": "a2app_hooks_full"}
HOOKS = "/api/_a2app/hooks"
BODY = {"type": "invoice.paid", "data": {"id": "in_1", "amount": 1200, "lines": [1, 2]}}


@dataclass
class Served:
    client: TestClient
    state: RuntimeState
    audit_file: Path

    def events(self) -> list[dict[str, Any]]:
        answer = self.client.get("/api/_a2app/events", headers=TOKEN)
        assert answer.status_code == 200, answer.text
        events: list[dict[str, Any]] = answer.json()["events"]
        return events

    def audit(self) -> list[tuple[str, str, str | None]]:
        rows = self.state.store.audit_entries(self.state.mapping.app.id, 0, 100)
        return [(row.target, row.outcome, row.code) for row in rows]


HOOKS_DECLARED = {
    "billing": {"scheme": "standard-webhooks", "secret": "${BILLING_SECRET}",
                "event": "invoice.paid", "capability": "reconcile"},
    "billing-ids": {"scheme": "standard-webhooks", "secret": "${BILLING_SECRET}",
                    "event": "invoice.seen", "payload": ["type", "data.id", "data.missing"]},
    "github": {"scheme": "hmac-sha256", "secret": "${PLAIN_SECRET}", "event": "repo.pushed",
               "header": "X-Hub-Signature-256", "prefix": "sha256="},
    "plain64": {"scheme": "hmac-sha256", "secret": "${PLAIN_SECRET}",
                "event": "thing.changed", "header": "X-Signature", "encoding": "base64"},
}  # fmt: skip
ENV = {"KANBAN_URL": "http://127.0.0.1:9", "KANBAN_TOKEN": "unused",
       "BILLING_SECRET": WHSEC, "PLAIN_SECRET": PLAIN}  # fmt: skip


def _hooked(**serve: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(KANBAN))
    doc["serve"] = {**doc["serve"], "hooks": HOOKS_DECLARED, **serve}
    return doc


@contextlib.contextmanager
def _serving(tmp_path: Path, **serve: Any) -> Iterator[Served]:
    mapping = load_document(_hooked(**serve), env=ENV)
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    token = TOKEN["x-a2app-token"]
    store.create_grant(id="cred_full", agent_name="runner", scopes=["*"], token=token)
    audit_file = tmp_path / "audit.jsonl"
    state = RuntimeState(mapping, store, UpstreamClient(mapping.upstream), audit_file=audit_file)
    try:
        with TestClient(create_app(state), base_url="http://127.0.0.1") as client:
            yield Served(client, state, audit_file)
    finally:
        store.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with _serving(tmp_path) as serving:
        yield serving


def _standard(
    body: bytes, msg_id: str = "msg_1", at: datetime | None = None, secret: str = WHSEC
) -> dict[str, str]:
    at = at or datetime.now(UTC)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, at, body),
        "content-type": "application/json",
    }


def _raw(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _refused(answer: Any) -> str:
    assert answer.status_code == 401, answer.text
    body = answer.json()
    assert body["a2app"] is True and body["ok"] is False
    return str(body["code"])


# ------------------------------------------------------------------ standard-webhooks


def test_a_signed_delivery_is_one_event_and_one_task(served: Served) -> None:
    raw = _raw(BODY)
    answer = served.client.post(f"{HOOKS}/billing", content=raw, headers=_standard(raw))
    assert answer.status_code == 200, answer.text
    doc = answer.json()
    assert doc["a2app"] is True and doc["duplicate"] is False
    assert doc["event"].startswith("evt_") and doc["task"].startswith("tsk_")
    (event,) = served.events()
    assert (event["id"], event["type"], event["payload"]) == (doc["event"], "invoice.paid", BODY)
    tasks = served.client.get("/api/_a2app/tasks", headers=TOKEN).json()["tasks"]
    assert [(t["id"], t["request"]) for t in tasks] == [
        (doc["task"], {"capability": "reconcile", "payload": BODY})
    ]


def test_declared_fields_make_the_payload(served: Served) -> None:
    raw = _raw(BODY)
    answer = served.client.post(f"{HOOKS}/billing-ids", content=raw, headers=_standard(raw))
    assert answer.status_code == 200 and "task" not in answer.json()
    (event,) = served.events()
    assert event["payload"] == {"type": "invoice.paid", "data.id": "in_1", "data.missing": None}


def test_a_replayed_delivery_raises_nothing_new(served: Served) -> None:
    raw = _raw(BODY)
    headers = _standard(raw, "msg_replayed")
    first = served.client.post(f"{HOOKS}/billing", content=raw, headers=headers).json()
    again = served.client.post(f"{HOOKS}/billing", content=raw, headers=headers).json()
    assert again == {**first, "duplicate": True}
    # a new delivery id is a new occurrence, even with the same body
    other = served.client.post(f"{HOOKS}/billing", content=raw, headers=_standard(raw, "msg_2"))
    assert other.json()["duplicate"] is False
    assert [e["id"] for e in served.events()] == [first["event"], other.json()["event"]]


Spoil = Callable[[dict[str, str], bytes], tuple[dict[str, str], bytes]]
OTHER_SECRET = "whsec_" + base64.b64encode(b"x" * 24).decode()


def _without(name: str) -> Spoil:
    return lambda h, raw: ({k: v for k, v in h.items() if k != name}, raw)


def _signed_at(seconds: int) -> Spoil:
    return lambda h, raw: (_standard(raw, at=datetime.now(UTC) + timedelta(seconds=seconds)), raw)


SPOILED: dict[str, Spoil] = {
    "bad-sig": lambda h, raw: ({**h, "webhook-signature": "v1,AAAA"}, raw),
    "body-changed": lambda h, raw: (h, raw + b" "),
    "id-changed": lambda h, raw: ({**h, "webhook-id": "msg_other"}, raw),
    "no-signature": _without("webhook-signature"),
    "no-timestamp": _without("webhook-timestamp"),
    "no-id": _without("webhook-id"),
    "unsigned": lambda h, raw: ({"content-type": "application/json"}, raw),
    "other-secret": lambda h, raw: (_standard(raw, secret=OTHER_SECRET), raw),
    "stale": _signed_at(-400),
    "from-the-future": _signed_at(400),
    "huge-timestamp": lambda h, raw: ({**h, "webhook-timestamp": "9" * 400}, raw),
    "signed-timestamp": lambda h, raw: (
        {**h, "webhook-timestamp": "-" + h["webhook-timestamp"]},
        raw,
    ),
    "unknown-version": lambda h, raw: (
        {**h, "webhook-signature": h["webhook-signature"].replace("v1,", "v2,")},
        raw,
    ),
}


@pytest.mark.parametrize("spoil", SPOILED.values(), ids=SPOILED.keys())
def test_a_delivery_that_is_not_rightly_signed_is_refused_and_audited(
    served: Served, spoil: Spoil
) -> None:
    raw = _raw(BODY)
    headers, sent = spoil(_standard(raw), raw)
    answer = served.client.post(f"{HOOKS}/billing", content=sent, headers=headers)
    assert _refused(answer) == "invalid_signature"
    assert served.events() == []
    assert served.audit() == [("hook:billing", "rejected", "invalid_signature")]


def test_a_signature_among_several_is_enough(served: Served) -> None:
    """During a key rotation the sender signs with the old and the new secret."""
    raw = _raw(BODY)
    headers = _standard(raw)
    headers["webhook-signature"] = "v1,bm90IGl0 " + headers["webhook-signature"]
    assert served.client.post(f"{HOOKS}/billing", content=raw, headers=headers).status_code == 200


# ------------------------------------------------------------------ hmac-sha256 header


def _hmac(raw: bytes) -> bytes:
    return hmac.new(PLAIN.encode(), raw, hashlib.sha256).digest()


def test_a_hex_header_signature_with_a_prefix(served: Served) -> None:
    raw = _raw({"ref": "refs/heads/main"})
    headers = {"X-Hub-Signature-256": "sha256=" + _hmac(raw).hex()}
    first = served.client.post(f"{HOOKS}/github", content=raw, headers=headers)
    assert first.status_code == 200 and first.json()["duplicate"] is False
    # no delivery id in this scheme: the signature names the delivery
    again = served.client.post(f"{HOOKS}/github", content=raw, headers=headers)
    assert again.json() == {**first.json(), "duplicate": True}
    (event,) = served.events()
    assert (event["type"], event["payload"]) == ("repo.pushed", {"ref": "refs/heads/main"})
    wrong = {"X-Hub-Signature-256": "sha256=" + _hmac(raw + b"\n").hex()}
    assert _refused(served.client.post(f"{HOOKS}/github", content=raw, headers=wrong)) == (
        "invalid_signature"
    )
    bare = {"X-Hub-Signature-256": _hmac(raw).hex()}  # the prefix missing
    assert _refused(served.client.post(f"{HOOKS}/github", content=raw, headers=bare)) == (
        "invalid_signature"
    )
    assert _refused(served.client.post(f"{HOOKS}/github", content=raw)) == "invalid_signature"
    assert served.audit() == [("hook:github", "rejected", "invalid_signature")] * 3


def test_a_base64_header_signature(served: Served) -> None:
    raw = _raw({"id": 7})
    good = {"X-Signature": base64.b64encode(_hmac(raw)).decode()}
    assert served.client.post(f"{HOOKS}/plain64", content=raw, headers=good).status_code == 200
    as_hex = {"X-Signature": _hmac(raw).hex()}
    assert _refused(served.client.post(f"{HOOKS}/plain64", content=raw, headers=as_hex)) == (
        "invalid_signature"
    )


# ------------------------------------------------------------------ the route


def test_an_undeclared_hook_a_wrong_verb_and_a_foreign_host(served: Served) -> None:
    raw = _raw(BODY)
    missing = served.client.post(f"{HOOKS}/nope", content=raw, headers=_standard(raw))
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    got = served.client.get(f"{HOOKS}/billing")
    assert (got.status_code, got.json()["code"]) == (405, "usage")
    foreign = served.client.post(
        f"{HOOKS}/billing", content=raw, headers={**_standard(raw), "host": "evil.example"}
    )
    assert (foreign.status_code, foreign.json()["code"]) == (403, "forbidden_host")
    assert served.events() == []


def test_a_signed_body_that_is_not_a_json_object(served: Served) -> None:
    raw = b"[1, 2]"
    answer = served.client.post(f"{HOOKS}/billing", content=raw, headers=_standard(raw))
    assert (answer.status_code, answer.json()["code"]) == (400, "invalid_json")


def test_a_body_over_the_cap_is_refused_before_it_is_verified(served: Served) -> None:
    raw = b"{" + b" " * (5 * 1024 * 1024) + b"}"
    answer = served.client.post(f"{HOOKS}/billing", content=raw, headers=_standard(raw))
    assert (answer.status_code, answer.json()["code"]) == (413, "payload_too_large")


def test_the_secret_is_nowhere(served: Served, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    raw = _raw(BODY)
    answers = [
        served.client.post(f"{HOOKS}/billing", content=raw, headers=_standard(raw)),
        served.client.post(f"{HOOKS}/billing", content=raw + b" ", headers=_standard(raw)),
        served.client.post(f"{HOOKS}/github", content=raw, headers={"X-Hub-Signature-256": "x"}),
        served.client.get("/api/_a2app/events", headers=TOKEN),
        served.client.get("/api/_a2app/describe", headers=TOKEN),
        served.client.get("/.well-known/a2app.json"),
    ]
    key = WHSEC.removeprefix("whsec_")
    where = {
        "answers": " ".join(a.text + str(a.headers) for a in answers),
        "logs": caplog.text,
        "audit file": served.audit_file.read_text(),
        "audit table": repr(served.state.store.audit_entries(served.state.mapping.app.id)),
        "mapping repr": repr(served.state.mapping),
    }
    assert "refused" in caplog.text and served.audit_file.read_text().count("hook:") == 2
    for name, text in where.items():
        for secret in (key, PLAIN, base64.b64decode(key).decode()):
            assert secret not in text, f"a secret in the {name}"


def test_no_agent_token_is_asked_even_of_a_multi_user_app(tmp_path: Path) -> None:
    with _serving(tmp_path, authMode="multi-user") as served:
        raw = _raw(BODY)
        answer = served.client.post(f"{HOOKS}/billing", content=raw, headers=_standard(raw))
        assert answer.status_code == 200, answer.text
        anonymous = served.client.get("/api/_a2app/events")
        assert (anonymous.status_code, anonymous.json()["code"]) == (401, "agent_token_required")


def test_deliveries_pass_the_rate_gate(tmp_path: Path) -> None:
    with _serving(tmp_path, rateLimits={"data": 2}) as served:
        codes = []
        for n in range(3):
            raw = _raw({"n": n})
            answer = served.client.post(
                f"{HOOKS}/billing", content=raw, headers=_standard(raw, f"m{n}")
            )
            codes.append(answer.status_code)
        assert codes == [200, 200, 429]
        assert served.audit() == [("rate:data", "rejected", "rate_limited")]


def test_a_secret_that_is_no_whsec_value_stops_the_runtime_from_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hooked.yaml"
    path.write_text(yaml.safe_dump(_hooked()))
    for name, value in {**ENV, "BILLING_SECRET": "whsec_not base64!"}.items():
        monkeypatch.setenv(name, value)
    options = ServeOptions(path, store_url=f"sqlite:///{tmp_path / 's.sqlite3'}",
                           state_dir=tmp_path, allow_unverified=True)  # fmt: skip
    with pytest.raises(MappingError) as refused:
        build_state(options)
    said = str(refused.value) + " ".join(p.render() for p in refused.value.problems)
    assert "serve.hooks.billing.secret" in said and "not base64" not in said


def test_an_unset_secret_is_named_where_it_is_read() -> None:
    with pytest.raises(MappingError) as refused:
        load_document(_hooked(), env={k: v for k, v in ENV.items() if k != "PLAIN_SECRET"})
    assert [p.render() for p in refused.value.problems] == [
        "serve.hooks.github.secret: environment variable not set: PLAIN_SECRET",
        "serve.hooks.plain64.secret: environment variable not set: PLAIN_SECRET",
    ]
