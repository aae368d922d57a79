"""The Stripe mock (`samples/stripe_mock`), probed from its root URL plus Stripe's own
OpenAPI and a Bearer key, verified and served, as an owner would from the command line.

The mock implements a small part of the spec and has real bugs (it drops `name` on a
customer create; most routes answer 404). The probe maps the spec honestly (form
bodies as forms, updates as POSTs, epoch-second times decoded), verify names the
dropped `name` as the upstream's fault, and the runtime's writes land upstream as
reported, or are refused saying what was not stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from samples.stripe_mock.spec import stripe_spec
from tests.fixtures.runtime import start_runtime
from tests.fixtures.stacks import StackServer, start_stripe

from .support import AGENT, GRANTS, lint, probe_into, verify_copy

NAME = "stripe-mock.probed.yaml"
HEADER = "Authorization: Bearer ${STRIPE_TOKEN}"


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_stripe() as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"STRIPE_MOCK_URL": server.url, "STRIPE_TOKEN": str(server.token)}


@pytest.fixture(scope="module")
def probed(
    server: StackServer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    where = tmp_path_factory.mktemp("probe")
    args = [server.url, "--openapi", str(stripe_spec()), "--header", HEADER,
            "--app-id", "stripe-mock", "--json"]  # fmt: skip
    result = probe_into(where, NAME, args, env_of(server))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    return where / NAME, summary


@pytest.fixture(scope="module")
def doc(probed: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(probed[0].read_text())
    return loaded


def test_the_probe_maps_the_mock_and_lints(probed: tuple[Path, dict[str, Any]]) -> None:
    path, summary = probed
    assert summary["ok"] is True and summary["exit"] == 0
    assert sum(summary["requests"].values()) <= 150 and summary["seconds"] < 30
    assert set(summary["requests"]) <= {"GET", "HEAD", "OPTIONS"}  # read-only
    assert lint(path).exit_code == 0


def test_form_bodies_are_writes_and_only_a_file_upload_is_left(doc: dict[str, Any]) -> None:
    assert doc["upstream"]["bodyEncoding"] == "form"
    assert doc["upstream"]["auth"] == {"type": "bearer", "token": "${STRIPE_TOKEN}"}
    reasons = [str(u["reason"]) for u in doc["unmapped"]]
    assert not [r for r in reasons if r.startswith("form-body")]
    uploads = [u for u in doc["unmapped"] if u["reason"].startswith("binary-request")]
    assert [(u["method"], u["path"]) for u in uploads] == [("POST", "/v1/files")]
    customers = doc["entities"]["customers"]
    assert customers["write"] == {"update": "POST"}


def test_collections_the_mock_does_not_serve_are_unmapped_with_their_404(
    doc: dict[str, Any],
) -> None:
    # The spec lists 70 collections; the mock serves these (the rest answer 404).
    assert set(doc["entities"]) == {
        "accounts", "charges", "customers", "plans", "prices", "products", "refunds",
        "subscriptions", "tax_rates",
    }  # fmt: skip
    coupons = {(u.get("method"), u["reason"].split(":")[0]) for u in doc["unmapped"]
               if u["path"].startswith("/v1/coupons")}  # fmt: skip
    assert coupons == {("GET", "not-found"), ("POST", "not-found"), ("DELETE", "not-found")}
    paths = {op["request"]["path"] for op in doc["operations"]}
    assert not any(p.startswith("/v1/coupons") for p in paths)


def test_paging_is_the_cursor_of_the_last_id(doc: dict[str, Any]) -> None:
    assert doc["upstream"]["pagination"] == {
        "style": "cursor", "size": "limit", "cursor": "starting_after", "items": "data",
        "nextFrom": "id", "more": "has_more", "maxSize": 100,
    }  # fmt: skip


def test_epoch_seconds_are_datetimes_with_their_evidence(doc: dict[str, Any]) -> None:
    created = doc["entities"]["customers"]["fields"]["created"]
    assert (created["type"], created["codec"], created["readOnly"]) == (
        "datetime", "epoch-seconds", True,
    )  # fmt: skip
    assert {"source": "openapi", "detail": "format: unix-time"} in created["evidence"]
    assert {"source": "sample", "detail": "every value is an integer of epoch seconds"} in (
        created["evidence"]
    )


def test_verify_names_the_dropped_name_as_the_upstreams_fault(
    probed: tuple[Path, dict[str, Any]], server: StackServer, tmp_path: Path
) -> None:
    path, _ = probed
    copy = tmp_path / "mapping" / path.name
    copy.parent.mkdir()
    copy.write_text(path.read_text())
    _, done, report = verify_copy(copy, tmp_path / "verify", env_of(server))
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    checks = {c["claim"]: c for c in report["checks"]}
    create = checks["entities.customers.write.create"]
    failure = create["failure"]
    assert (failure["type"], failure["wrong"]) == ("WriteNotPersisted", "upstream")
    assert "name: sent 'a2v-" in failure["message"] and "stored None" in failure["message"]
    # What the mock does store proves the form encoding and the epoch codec on reads.
    assert checks["entities.customers.write.create.minimal"]["outcome"] == "passed"
    assert checks["entities.customers.fields.created.type"]["outcome"] == "passed"
    assert checks["entities.customers.list"]["outcome"] == "passed"


def test_writes_through_the_runtime_land_upstream_as_reported(
    probed: tuple[Path, dict[str, Any]], server: StackServer
) -> None:
    path, _ = probed

    def direct(ident: str) -> dict[str, Any]:
        answer = httpx.get(server.collection(f"customers/{ident}"), headers=server.headers)
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    with start_runtime(path, server, grants=GRANTS, env=env_of(server)) as rt:
        base = f"{rt.url}/api/collections/customers/records"
        body = {"name": "Ada", "email": "ada@example.com", "description": "a & b = c [d] é",
                "metadata": {"plan": "pro"}}  # fmt: skip
        created = httpx.post(base, json=body, headers=AGENT, timeout=30)
        # The mock drops `name` on create: the write is refused as not stored, naming it.
        assert created.status_code >= 400, created.text
        refusal = created.json()
        assert refusal["code"] == "not_stored"
        assert [v["field"] for v in refusal["violations"]] == ["name"]
        ident = str(refusal["id"])
        stored = direct(ident)
        assert stored["name"] is None
        assert (stored["email"], stored["description"], stored["metadata"]) == (
            "ada@example.com", "a & b = c [d] é", {"plan": "pro"},
        )  # fmt: skip

        changes = {"name": "Ada Lovelace", "metadata": {"tier": "gold"}}
        updated = httpx.patch(f"{base}/{ident}", json=changes, headers=AGENT, timeout=30)
        assert updated.status_code == 200, updated.text
        record = updated.json()
        stored = direct(ident)
        assert record["name"] == stored["name"] == "Ada Lovelace"
        assert stored["metadata"]["tier"] == "gold" and record["metadata"] == stored["metadata"]
        assert record["created"].endswith("Z") and isinstance(stored["created"], int)

        read = httpx.get(f"{base}/{ident}", headers=AGENT, timeout=30).json()
        assert read["created"] == record["created"]

        # An invalid create is refused with every violation; nothing reaches the mock.
        before = httpx.get(server.collection("customers"), params={"limit": 100},
                           headers=server.headers).json()["data"]  # fmt: skip
        bad = httpx.post(base, json={"email": 5, "balance": "x", "name": 7}, headers=AGENT)
        assert bad.status_code == 400, bad.text
        fields = sorted(v["field"] for v in bad.json()["violations"])
        assert fields == ["balance", "email", "name"]
        after = httpx.get(server.collection("customers"), params={"limit": 100},
                          headers=server.headers).json()["data"]  # fmt: skip
        assert [c["id"] for c in after] == [c["id"] for c in before]

        # The mock has no customer delete: the runtime answers an error, never a success,
        # and the record is still there.
        gone = httpx.delete(f"{base}/{ident}", headers=AGENT, timeout=30)
        assert gone.status_code >= 400, gone.text
        assert direct(ident)["id"] == ident


def test_records_that_cannot_be_deleted_are_written_only_when_allowed(
    probed: tuple[Path, dict[str, Any]], server: StackServer, tmp_path: Path
) -> None:
    path, _ = probed
    doc = yaml.safe_load(path.read_text())
    assert doc["entities"]["tax_rates"]["write"] == {"update": "POST", "delete": False}
    env = env_of(server)
    _, _, plain = verify_copy(path, tmp_path / "plain", env, "--only", "tax_rates")
    claims = {c["claim"]: c for c in plain["checks"]}
    create = claims["entities.tax_rates.write.create"]
    assert create["outcome"] == "unproven" and "--allow-leftovers" in create["note"]
    assert not [x for x in plain["cleanup"]["leftovers"] if x["entity"] == "tax_rates"]

    _, _, allowed = verify_copy(
        path, tmp_path / "allowed", env, "--only", "tax_rates", "--allow-leftovers"
    )
    claims = {c["claim"]: c for c in allowed["checks"]}
    # Written now; what the mock then fails to store is its own fault, named as such.
    assert claims["entities.tax_rates.write.create.minimal"]["outcome"] == "passed"
    create = claims["entities.tax_rates.write.create"]
    assert create["outcome"] == "passed" or create["failure"]["wrong"] == "upstream"
    # Form bodies store what was sent: escaped text, and metadata[...] as an object.
    form = claims["entities.tax_rates.write.form"]
    assert form["outcome"] == "passed", form
    assert form["note"] == "stored as sent through a form: display_name, metadata[...]"
    left = [x for x in allowed["cleanup"]["leftovers"] if x["entity"] == "tax_rates"]
    assert left, allowed["cleanup"]
    for item in left:
        answer = httpx.get(server.collection(f"tax_rates/{item['id']}"), headers=server.headers)
        assert answer.status_code == 200  # left behind, as reported
