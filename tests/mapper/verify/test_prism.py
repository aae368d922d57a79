"""An upstream that does not persist writes (Prism mocking the sample's own OpenAPI) is refused.

Reads may verify; every write claim must be refused, each refusal naming the
request and the answer that disproved it. Prism's answers carry `next` links to
an example host: they are refused, and no host but the upstream is ever contacted.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from mapper.verify import VerifyOptions, render, run_verification
from runtime.mapping import load_mapping
from tests.fixtures.servers import KanbanServer

from .prism import prism_mock
from .support import ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(900)]
TOKEN = "prism-token-0123456789"
WRITE_CLAIMS = ("write.create", "write.update", "write.delete")


class HostLog(httpx.AsyncBaseTransport):
    """The network side of the runtime's client: every host actually contacted."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.hosts: set[str] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.hosts.add(f"{request.url.host}:{request.url.port}")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_writes_that_are_not_stored_are_refused(kanban: KanbanServer, tmp_path: Path) -> None:
    spec = tmp_path / "kanban-openapi.json"
    answer = httpx.get(
        f"{kanban.url}/api/schema/", params={"format": "json"}, headers=kanban.headers
    )
    answer.raise_for_status()
    spec.write_bytes(answer.content)
    assert "api.example.org" in answer.text  # the example next links Prism will send

    with prism_mock(spec, TOKEN) as url:
        env = {"KANBAN_URL": url, "KANBAN_TOKEN": TOKEN}
        mapping = load_mapping(ROOT / "mappings" / "kanban-drf.yaml", env=env)
        network = HostLog()
        report = await run_verification(mapping, VerifyOptions(), transport=network)

    assert report.outcome == "refused" and not report.stampable
    assert network.hosts == {url.removeprefix("http://")}
    results = {r.claim: r for r in report.results}
    assert results["upstream.auth"].outcome == "passed"
    for entity in mapping.entities:
        for claim in WRITE_CLAIMS:
            result = results[f"entities.{entity}.{claim}"]
            assert result.outcome == "failed", result.as_dict()
            failure = result.failure
            assert failure is not None and failure.wrong == "upstream"
            assert type(failure).__name__ in ("WriteNotPersisted", "ReadAfterDeleteSucceeded")
            assert failure.request and failure.response and failure.fix
        listing = results[f"entities.{entity}.list"]
        assert listing.failure is not None
        assert type(listing.failure).__name__ == "LinkOutsideUpstream"
        assert "api.example.org" in listing.failure.message
    text = render(report)
    assert (
        "response: HTTP 200" in text and "change:   set entities.cards.write.create: false" in text
    )
    assert TOKEN not in text
