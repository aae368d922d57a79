"""The delete guard's referrer check on an upstream that cannot answer a narrowed listing."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from runtime.mapping import Mapping, load_mapping_text
from runtime.protocol import ProtocolError
from runtime.service._records import referenced_by
from runtime.upstream import UpstreamClient

pytestmark = pytest.mark.anyio

MAPPING = """
format: 1
app: {id: shop, name: Shop}
upstream:
  baseUrl: http://shop.test
  pagination: {style: none}
modules:
  - {name: shop}
entities:
  customers:
    module: shop
    path: /customers
    fields:
      email: {type: string}
  subscriptions:
    module: shop
    path: /subscriptions
    fields:
      customer: {type: ref, entity: customers}
    filter:
      customer: {"=": customer}
"""

SUBSCRIPTIONS = [{"id": "s1", "customer": "c1"}, {"id": "s2", "customer": "c2"}]


@dataclass
class Shop:
    """Answers 500 to a listing narrowed by `customer`; `broken` fails every listing."""

    broken: bool = False
    asked: list[str] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(str(request.url))
        if request.url.path == "/subscriptions":
            if self.broken or "customer" in request.url.params:
                return httpx.Response(500, json={"message": "Unexpected error"})
            return httpx.Response(200, json=SUBSCRIPTIONS)
        return httpx.Response(404, json={})


@dataclass
class Reach:
    mapping: Mapping
    upstream: UpstreamClient
    fanout: asyncio.Semaphore


async def referrers(shop: Shop, record_id: str) -> list[dict[str, Any]]:
    mapping = load_mapping_text(MAPPING, env={})
    client = UpstreamClient.for_mapping(mapping, transport=httpx.MockTransport(shop))
    async with client:
        reach = Reach(mapping, client, asyncio.Semaphore(4))
        return await referenced_by(reach, mapping.entities["customers"], record_id)


async def test_a_refused_narrowed_listing_is_checked_whole_here() -> None:
    shop = Shop()
    found = await referrers(shop, "c1")
    assert found == [{"entity": "subscriptions", "field": "customer", "ids": ["s1"]}]
    assert any("customer=c1" in url for url in shop.asked)  # the narrowed listing first
    assert await referrers(Shop(), "c3") == []


async def test_an_upstream_that_lists_nothing_cannot_tell_and_nothing_is_deleted() -> None:
    with pytest.raises(ProtocolError) as raised:
        await referrers(Shop(broken=True), "c1")
    assert raised.value.code == "upstream_error"
    assert "Cannot tell whether a subscriptions record references this one" in (
        raised.value.message
    )
