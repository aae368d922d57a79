"""The Stripe mock sample over real HTTP: it starts, holds its seed, refuses without its key,
and its whole process group stops."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from samples.stripe_mock.server import CUSTOMERS, PRICES, PRODUCTS
from samples.stripe_mock.spec import stripe_spec
from tests.fixtures._procs import group_members
from tests.fixtures.stacks import StackServer, start_stripe


@pytest.fixture(scope="module")
def stripe() -> Iterator[StackServer]:
    with start_stripe() as server:
        yield server


def listing(server: StackServer, name: str) -> list[dict[str, object]]:
    answer = httpx.get(server.collection(name), params={"limit": 100}, headers=server.headers)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["object"] == "list" and body["has_more"] is False
    return list(body["data"])


@pytest.mark.parametrize(
    ("name", "count"),
    [("customers", len(CUSTOMERS)), ("products", len(PRODUCTS)), ("prices", len(PRICES))],
)
def test_the_seed_is_served_with_its_metadata(stripe: StackServer, name: str, count: int) -> None:
    records = listing(stripe, name)
    assert len(records) == count
    assert all(isinstance(r["metadata"], dict) and r["metadata"] for r in records)
    assert all(isinstance(r["created"], int) for r in records)  # epoch seconds


def test_customers_carry_the_names_set_by_update(stripe: StackServer) -> None:
    names = sorted(str(r["name"]) for r in listing(stripe, "customers"))
    assert names == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]


def test_prices_point_at_seeded_products(stripe: StackServer) -> None:
    products = {r["id"] for r in listing(stripe, "products")}
    assert {r["product"] for r in listing(stripe, "prices")} <= products


def test_a_request_without_the_key_is_refused(stripe: StackServer) -> None:
    answer = httpx.get(stripe.collection("customers"))
    assert answer.status_code == 401
    assert answer.json()["error"]["type"] == "invalid_request_error"


def test_the_token_is_a_test_secret_key(stripe: StackServer) -> None:
    assert str(stripe.token).startswith("sk_test_")
    assert stripe.url.startswith("http://127.0.0.1:")


def test_stripes_spec_is_installed_beside_the_mock() -> None:
    assert stripe_spec().name == "stripe.com.json"


def test_stopping_ends_the_whole_group() -> None:
    with start_stripe() as server:
        assert len(group_members(server.pid)) >= 2  # the launcher and node
        code = server.stop()
        assert code == 0
        assert group_members(server.pid) == []
