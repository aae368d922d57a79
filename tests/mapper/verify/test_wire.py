"""Evidence is recorded per check, without credentials; requests are counted per entity."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from mapper.verify._wire import Recorder, Redactor, evidence, scoped
from runtime.mapping import load_mapping_text
from runtime.upstream import UpstreamClient

from .fake import BASE, MAPPING_YAML, TOKEN, FakeApi, mapping

pytestmark = pytest.mark.anyio


def test_credentials_never_survive_redaction() -> None:
    redact = Redactor(mapping())
    assert TOKEN not in redact.text(f"echo: Token {TOKEN} and {TOKEN}")
    query = MAPPING_YAML.replace(
        'auth: {type: header, name: Authorization, value: "Token ${FAKE_TOKEN}"}',
        'auth: {type: query, name: key, value: "${FAKE_TOKEN}"}',
    )
    by_query = Redactor(load_mapping_text(query, env={"FAKE_URL": BASE, "FAKE_TOKEN": TOKEN}))
    target = by_query.target(httpx.URL(f"{BASE}/api/cards/?key={TOKEN}&page=2"))
    assert TOKEN not in target and "page=2" in target


async def test_each_task_cites_only_its_own_requests() -> None:
    model = mapping()
    recorder = Recorder(model, FakeApi().transport)
    async with UpstreamClient.for_mapping(model, transport=recorder) as client:

        async def read(entity: str, record: str) -> str | None:
            with scoped():
                await client.get_record(model.entities[entity], record)
                await asyncio.sleep(0)
                return evidence("GET")["request"]

        cards, lists = await asyncio.gather(read("cards", "r004"), read("lists", "r001"))
    assert cards == "GET /api/cards/r004/" and lists == "GET /api/lists/r001/"
    assert recorder.counts == {"cards": 1, "lists": 1}
    assert recorder.hosts == {"fake.test:"}
    assert evidence() == {"request": None, "response": None}  # outside any check
