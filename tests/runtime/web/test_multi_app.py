"""One runtime process serving three mappings side by side: the Django kanban, the
PocketBase kanban and the Stripe mock, each under /apps/{appId}, all on one store.

Each app answers its own identity and describe and reads and writes its own upstream
through its base; the root answers the directory (never one app's identity), other
root paths are 404 naming the bases; a token granted for one app is unknown to another.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from runtime.store import Store
from samples.stripe_mock.spec import stripe_spec
from tests.fixtures.runtime import (
    KANBAN_DRF,
    MAPPINGS,
    GrantSpec,
    RuntimeServer,
    mapping_variant,
    start_runtime,
)
from tests.fixtures.servers import KanbanServer, start_kanban
from tests.fixtures.stacks import StackServer, start_pocketbase, start_stripe
from tests.runtime.gateway.helpers import body, text
from tests.stacks.support import probe_into

POCKETBASE = MAPPINGS / "pocketbase-kanban.probed.yaml"
FULL = "a2app_multi_full"  # every app of the store
KANBAN_ONLY = "a2app_multi_kanban_only"  # granted for kanban-drf alone
GRANTS = (
    GrantSpec("cred_multi", "multi", ("*",), FULL),
    GrantSpec("cred_kanban", "kanban-only", ("*",), KANBAN_ONLY, app="kanban-drf"),
)
AGENT = {"x-a2app-token": FULL}
FEED = {"entities": ["cards"], "interval": 1, "budget": 600}
FEED_APPS = ("kanban-drf", "pocketbase-kanban")
BASES = {
    "kanban-drf": "/apps/kanban-drf",
    "pocketbase-kanban": "/apps/pocketbase-kanban",
    "stripe-mock": "/apps/stripe-mock",
}


@dataclass(frozen=True)
class Served:
    rt: RuntimeServer
    kanban: KanbanServer
    pocketbase: StackServer
    stripe: StackServer

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.rt.url + path, timeout=30, **kwargs)


def _stripe_mapping(stripe: StackServer, where: Path) -> Path:
    env = {"STRIPE_MOCK_URL": stripe.url, "STRIPE_TOKEN": str(stripe.token)}
    header = "Authorization: Bearer ${STRIPE_TOKEN}"
    args = [stripe.url, "--openapi", str(stripe_spec()), "--header", header,
            "--app-id", "stripe-mock", "--json"]  # fmt: skip
    result = probe_into(where, "stripe-mock.probed.yaml", args, env)
    assert result.exit_code == 0, result.output
    return where / "stripe-mock.probed.yaml"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with contextlib.ExitStack() as stack:
        kanban = stack.enter_context(start_kanban())
        pocketbase = stack.enter_context(start_pocketbase())
        stripe = stack.enter_context(start_stripe())
        stripe_mapping = _stripe_mapping(stripe, tmp_path_factory.mktemp("stripe"))
        env = {
            "POCKETBASE_KANBAN_URL": pocketbase.url,
            "POCKETBASE_KANBAN_TOKEN": str(pocketbase.token),
            "STRIPE_MOCK_URL": stripe.url,
            "STRIPE_TOKEN": str(stripe.token),
        }
        feeds = [
            mapping_variant(base, tmp_path_factory.mktemp("feed"), serve__feed=FEED)
            for base in (KANBAN_DRF, POCKETBASE)
        ]
        mappings = [*feeds, stripe_mapping]
        rt = stack.enter_context(start_runtime(mappings, kanban, grants=GRANTS, env=env))
        yield Served(rt, kanban, pocketbase, stripe)


def _no_clock(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "serverNow"}


def test_the_root_answers_the_directory_never_one_app(served: Served) -> None:
    docs = [served.get(p) for p in ("/api/_a2app", "/.well-known/a2app.json", "/api/_a2app/apps")]
    assert [d.status_code for d in docs] == [200, 200, 200]
    first = docs[0].json()
    assert all(_no_clock(d.json()) == _no_clock(first) for d in docs)
    assert first["a2app"] is True and first["directory"] is True and "app" not in first
    assert {a["id"]: a["base"] for a in first["apps"]} == BASES
    for app in first["apps"]:
        assert app["identity"] == app["base"] + "/api/_a2app"
        assert app["describe"] == app["base"] + "/api/_a2app/describe"
    # each app lists the same directory at its own base
    inner = served.get("/apps/stripe-mock/api/_a2app/apps").json()
    assert _no_clock(inner) == _no_clock(first)


@pytest.mark.parametrize(
    "path",
    [
        "/api/collections/cards/records",
        "/api/_a2app/describe",
        "/api/ops/x",
        "/apps/nope/api/_a2app",
    ],
)
def test_other_root_paths_are_404_naming_the_bases(served: Served, path: str) -> None:
    answer = served.get(path, headers=AGENT)
    assert answer.status_code == 404
    body = answer.json()
    assert body["code"] == "not_found" and "/apps/{appId}/" in body["message"]
    assert sorted(body["apps"]) == sorted(BASES.values())


@pytest.mark.parametrize("app_id", list(BASES))
def test_each_app_answers_its_own_identity_and_describe(served: Served, app_id: str) -> None:
    base = BASES[app_id]
    for path in ("/api/_a2app", "/.well-known/a2app.json"):
        identity = served.get(base + path)
        assert identity.status_code == 200, identity.text
        assert identity.json()["a2app"] is True and identity.json()["app"]["id"] == app_id
    describe = served.get(base + "/api/_a2app/describe", headers=AGENT)
    assert describe.status_code == 200, describe.text
    assert describe.json()["app"]["id"] == app_id
    assert served.get(base + "/api/_a2app/whoami", headers=AGENT).json()["credentialId"] == (
        "cred_multi"
    )


def _write_and_read(served: Served, base: str, entity: str, body: dict[str, Any]) -> str:
    records = f"{served.rt.url}{base}/api/collections/{entity}/records"
    made = httpx.post(records, json=body, headers=AGENT, timeout=30)
    assert made.status_code == 200, made.text
    ident = str(made.json()["id"])
    read = httpx.get(f"{records}/{ident}", headers=AGENT, timeout=30)
    assert read.status_code == 200, read.text
    assert {k: read.json()[k] for k in body} == body
    listed = httpx.get(records, params={"perPage": 200}, headers=AGENT, timeout=30)
    assert listed.status_code == 200, listed.text
    assert ident in {str(r["id"]) for r in listed.json()["items"]}
    return ident


def test_an_unknown_app_is_named(served: Served) -> None:
    body = served.get("/apps/nope/api/_a2app").json()
    assert body["code"] == "not_found" and body["message"].startswith("No app 'nope' is served")


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("POST", "/api/ops/no-such-op", {}, 404, "unknown_operation"),
        ("POST", "/api/realtime", {"clientId": "nope", "subscriptions": []}, 404, "usage"),
        ("GET", "/api/_ops", None, 200, None),
    ],
)
def test_operations_and_realtime_answer_under_the_base(
    served: Served, method: str, path: str, body: Any, status: int, code: str | None
) -> None:
    url = f"{served.rt.url}{BASES['kanban-drf']}{path}"
    answer = httpx.request(method, url, json=body, headers=AGENT, timeout=30)
    assert answer.status_code == status, answer.text
    assert answer.json().get("code") == code


def test_a_record_written_and_read_through_each_app(served: Served) -> None:
    tag = uuid.uuid4().hex[:8]
    card = _write_and_read(served, BASES["kanban-drf"], "cards",
                           {"title": f"Django {tag}", "list": "list_todo"})  # fmt: skip
    direct = httpx.get(f"{served.kanban.api}/cards/{card}/", headers=served.kanban.headers)
    assert direct.json()["title"] == f"Django {tag}"

    lists = httpx.get(served.pocketbase.collection("lists"), headers=served.pocketbase.headers)
    a_list = lists.json()["items"][0]["id"]
    card = _write_and_read(served, BASES["pocketbase-kanban"], "cards",
                           {"title": f"PocketBase {tag}", "list": a_list})  # fmt: skip
    in_pocketbase = f"{served.pocketbase.collection('cards')}/{card}"
    direct = httpx.get(in_pocketbase, headers=served.pocketbase.headers)
    assert direct.json()["title"] == f"PocketBase {tag}"

    email = f"{tag}@example.com"
    customer = _write_and_read(served, BASES["stripe-mock"], "customers", {"email": email})
    direct = httpx.get(served.stripe.collection(f"customers/{customer}"),
                       headers=served.stripe.headers)  # fmt: skip
    assert direct.json()["email"] == email


def test_a_token_of_one_app_is_unknown_to_another(served: Served) -> None:
    mine = {"x-a2app-token": KANBAN_ONLY}
    ok = served.get("/apps/kanban-drf/api/_a2app/whoami", headers=mine)
    assert ok.status_code == 200 and ok.json()["credentialId"] == "cred_kanban"
    for app_id in ("pocketbase-kanban", "stripe-mock"):
        refused = served.get(f"{BASES[app_id]}/api/_a2app/whoami", headers=mine)
        assert refused.status_code == 401, refused.text
        body = refused.json()
        assert body["code"] == "agent_token_required" and "not known here" in body["message"]


def test_every_app_runs_its_own_lifespan(served: Served) -> None:
    """Both apps with a change feed poll their upstream: each app's lifespan started its
    feed, which takes its baseline in the store they share."""
    deadline = time.monotonic() + 30
    with Store.open(served.rt.store_url) as store:
        while True:
            states = {app: store.feed_state(app, "cards") for app in FEED_APPS}
            if all(s is not None and s.baseline_at is not None for s in states.values()):
                break
            assert time.monotonic() < deadline, f"no baseline in time: {states}"
            time.sleep(0.2)


def _mcp(served: Served, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(f"{served.rt.url}/mcp", http_client=http))


@pytest.mark.anyio
async def test_the_mcp_gateway_at_the_root_drives_every_app(served: Served) -> None:
    seen: list[str] = []

    async def call(client: Client, tool: str, args: dict[str, Any]) -> Any:
        result = await client.call_tool(tool, args)
        seen.append(text(result))
        return result

    tag = uuid.uuid4().hex[:8]
    lists = httpx.get(served.pocketbase.collection("lists"), headers=served.pocketbase.headers)
    writes = {
        "kanban-drf": ("cards", {"title": f"MCP {tag}", "list": "list_todo"}),
        "pocketbase-kanban": (
            "cards",
            {"title": f"MCP {tag}", "list": lists.json()["items"][0]["id"]},
        ),
        "stripe-mock": ("customers", {"email": f"mcp-{tag}@example.com"}),
    }
    async with _mcp(served, FULL) as client:
        listed = await call(client, "describe", {})
        assert {a["id"] for a in body(listed)["apps"]} == set(BASES)
        # an app must be named when several are served
        unnamed = await call(client, "records", {"entity": "cards", "action": "list"})
        assert unnamed.is_error and body(unnamed)["code"] == "usage"
        made: dict[str, str] = {}
        for app_id, (entity, data) in writes.items():
            root = await call(client, "describe", {"app": app_id})
            assert not root.is_error, text(root)
            assert body(root)["level"] == "root" and body(root)["app"]["id"] == app_id
            # a refused write names every violation, a correct one answers its receipt
            target = {"app": app_id, "entity": entity, "action": "create"}
            bad = await call(client, "records", {**target, "data": {"nope": 1}})
            assert bad.is_error and "unknown_field" in {v["code"] for v in body(bad)["violations"]}
            good = await call(client, "records", {**target, "data": data})
            assert not good.is_error, text(good)
            assert text(good).splitlines()[0].startswith("Created ")
            made[app_id] = str(body(good)["id"])
    card = httpx.get(f"{served.kanban.api}/cards/{made['kanban-drf']}/",
                     headers=served.kanban.headers)  # fmt: skip
    assert card.json()["title"] == f"MCP {tag}"
    in_pocketbase = f"{served.pocketbase.collection('cards')}/{made['pocketbase-kanban']}"
    assert httpx.get(in_pocketbase, headers=served.pocketbase.headers).json()["title"] == (
        f"MCP {tag}"
    )
    customer = httpx.get(served.stripe.collection(f"customers/{made['stripe-mock']}"),
                         headers=served.stripe.headers)  # fmt: skip
    assert customer.json()["email"] == f"mcp-{tag}@example.com"
    # no upstream's secret reaches a tool result
    secrets = [str(s.token) for s in (served.kanban, served.pocketbase, served.stripe)]
    assert not [t for t in seen for secret in secrets if secret in t]
    # a token granted for one app reaches that app alone through the gateway too
    async with _mcp(served, KANBAN_ONLY) as client:
        mine = await client.call_tool("describe", {"app": "kanban-drf"})
        assert not mine.is_error, text(mine)
        other = await client.call_tool(
            "records", {"app": "stripe-mock", "entity": "customers", "action": "list"}
        )
        assert other.is_error and body(other)["code"] == "agent_token_required"
