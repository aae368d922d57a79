"""A listing by POST (`list: {method: POST}`), proven by reads: walks and gets by id agree.

The fake API lists `things` only by ``POST /api/things/filter {offset, limit}`` and
reads one at ``GET /api/things/{id}``; each quirk makes it wrong in exactly one way.
The real Prefect server covers the same end to end in `tests/stacks/test_prefect.py`.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from mapper.verify import Report, VerifyOptions, run_verification
from runtime.mapping import load_mapping_text

pytestmark = pytest.mark.anyio

BASE = "http://posted.test"
MAPPING = """
format: 1
app: {id: posted, name: Posted}
upstream:
  baseUrl: ${POSTED_URL}
  auth: {type: none}
  pagination: {style: none, items: ""}
modules:
  - {name: things}
entities:
  things:
    module: things
    path: /api/things/
    detailPath: /api/things/{id}
    label: name
    fields:
      name: {type: string, required: true}
    write: {create: false, update: false, delete: false}
    list:
      method: POST
      path: /api/things/filter
      pagination: {style: offset, offset: offset, size: limit, items: "", maxSize: 200}
"""


class Things:
    """37 things; `quirk` names the one way the API is wrong."""

    def __init__(self, quirk: str | None = None) -> None:
        self.quirk = quirk
        self.rows = [{"id": f"t{n:02d}", "name": f"thing {n}"} for n in range(37)]
        self.posts: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "POST" and path == "/api/things/filter":
            body = json.loads(request.content or b"{}")
            self.posts.append(body)
            start, size = body.get("offset", 0), body.get("limit", 200)
            if self.quirk == "ignores paging":
                return httpx.Response(200, json=self.rows)
            rows = self.rows[start : start + size]
            if self.quirk == "lists something else":
                rows = [{**r, "id": "other-" + r["id"]} for r in rows]
            return httpx.Response(200, json=rows)
        if request.method == "GET" and path.startswith("/api/things/"):
            found = [r for r in self.rows if r["id"] == path.rsplit("/", 1)[1]]
            if not found:
                return httpx.Response(404, json={"detail": "Not found."})
            row = found[0]
            if self.quirk == "reads differently" and row["id"] == "t36":
                row = {**row, "name": "renamed"}
            return httpx.Response(200, json=row)
        return httpx.Response(405, json={"detail": "Method Not Allowed"})


async def verify(api: Things) -> Report:
    mapping = load_mapping_text(MAPPING, env={"POSTED_URL": BASE})
    options = VerifyOptions(read_only=True)
    return await run_verification(mapping, options, transport=httpx.MockTransport(api))


def outcome(report: Report, claim: str) -> tuple[str, str]:
    found = next(r for r in report.results if r.claim == claim)
    failure = found.failure.__class__.__name__ if found.failure is not None else ""
    return found.outcome, failure


async def test_a_listing_by_post_is_proven_by_reads_alone() -> None:
    api = Things()
    report = await verify(api)
    assert outcome(report, "entities.things.list") == ("passed", "")
    assert outcome(report, "entities.things.list.posted") == ("passed", "")
    posted = next(r for r in report.results if r.claim == "entities.things.list.posted")
    assert posted.note == "37 records listed by POST; 25 read back by id as listed"
    # Paging went in the JSON body, as numbers; nothing but reads was sent.
    assert {"offset": 0, "limit": 13} in api.posts and all(
        isinstance(v, int) for body in api.posts for v in body.values()
    )


QUIRKS = [
    ("lists something else", "entities.things.list.posted", "GetNotFound"),
    ("reads differently", "entities.things.list.posted", "GetDisagreesWithList"),
    ("ignores paging", "entities.things.list", "ListDuplicates"),
]


@pytest.mark.parametrize(("quirk", "claim", "failure"), QUIRKS, ids=[q[0] for q in QUIRKS])
async def test_a_listing_by_post_that_is_wrong_is_refused(
    quirk: str, claim: str, failure: str
) -> None:
    report = await verify(Things(quirk))
    assert outcome(report, claim) == ("failed", failure)
