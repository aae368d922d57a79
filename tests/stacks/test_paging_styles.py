"""Every paging style end to end: probed from what the API answers, proven, served, walked.

`samples/paging_styles` is a small Starlette app serving the same 35 records under one
path prefix per style (a page number in ``X-Next-Page``, a cursor in ``X-Next-Cursor``,
a next URL in a header, offsets with ``Content-Range``, range requests in both
spellings, offsets with the total in the body, a cursor in the body, and a
json-server-1.0-like API that takes unknown paging names as field filters). Each
prefix is probed as an API of its own (no spec: ``--collection /items``), verified
read-only, served through the gate, and walked page by page through the runtime.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from samples.paging_styles.app import RECORDS
from tests.fixtures.runtime import start_runtime
from tests.fixtures.stacks import StackServer, start_stack

from .support import AGENT, GRANTS, lint, probe_into, verify_copy

EXPECTED: dict[str, dict[str, Any]] = {
    "page-header": {"style": "page", "page": "page", "size": "per_page", "items": "",
                    "totalHeader": "X-Total", "nextHeader": "x-next-page"},
    "cursor-header": {"style": "cursor", "size": "limit", "cursor": "after", "items": "",
                      "nextHeader": "x-next-cursor"},
    "next-url-header": {"style": "cursor", "size": "limit", "cursor": "starting_after",
                        "items": "", "nextHeader": "x-next-page"},
    "offset-content-range": {"style": "offset", "size": "limit", "offset": "skip",
                             "items": "", "totalHeader": "Content-Range"},
    "range": {"style": "range", "items": "", "totalHeader": "Content-Range"},
    "range-unit": {"style": "range", "unit": "items", "unitHeader": "Range-Unit", "items": "",
                   "totalHeader": "Content-Range"},
    "offset-total-body": {"style": "offset", "offset": "offset", "size": "limit",
                          "items": "items", "total": "total"},
    "cursor-body": {"style": "cursor", "cursor": "cursor", "items": "data",
                    "next": "next_cursor"},
    "filter-trap": {"style": "page", "page": "_page", "size": "_per_page", "items": "data",
                    "next": "next"},
}  # fmt: skip
STYLES = sorted(EXPECTED)
ALL_IDS = [r["id"] for r in RECORDS]


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_stack("paging_styles") as upstream:
        yield upstream


@pytest.fixture(scope="module")
def probed(server: StackServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    found = {}
    for style in STYLES:
        where = tmp_path_factory.mktemp(style)
        args = [f"{server.url}/{style}", "--collection", "/items", "--app-id", "styles"]
        result = probe_into(where, "styles.yaml", args, {})
        assert result.exit_code == 0, result.output
        found[style] = where / "styles.yaml"
    return found


def env_of(server: StackServer, style: str) -> dict[str, str]:
    return {"STYLES_URL": f"{server.url}/{style}"}


@pytest.mark.parametrize("style", STYLES)
def test_the_probe_finds_the_style_from_the_answers(probed: dict[str, Path], style: str) -> None:
    doc = yaml.safe_load(probed[style].read_text())
    assert doc["upstream"]["pagination"] == EXPECTED[style]
    assert lint(probed[style]).exit_code == 0


def test_field_filters_are_named_as_such(probed: dict[str, Path]) -> None:
    notes = yaml.safe_load(probed["filter-trap"].read_text())["probe"]["notes"]
    assert (
        "upstream.pagination: sample: _page=1&_limit=1 answered no record while 35 exist: the "
        "API takes it as a field filter; not paging parameters"
    ) in notes


def walk(runtime_url: str, per_page: int) -> tuple[list[str], int]:
    ids: list[str] = []
    page, total = 1, -1
    while True:
        answer = httpx.get(
            f"{runtime_url}/api/collections/items/records",
            params={"page": page, "perPage": per_page},
            headers=AGENT,
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        doc = answer.json()
        ids += [item["id"] for item in doc["items"]]
        total = doc["totalItems"]
        if page >= doc["totalPages"] or not doc["items"]:
            return ids, total
        page += 1


@pytest.mark.parametrize("style", STYLES)
def test_verified_served_and_walked_page_by_page(
    server: StackServer, probed: dict[str, Path], style: str, tmp_path: Path
) -> None:
    copy, done, report = verify_copy(probed[style], tmp_path, env_of(server, style), "--read-only")
    assert done.returncode == 0, done.stdout + done.stderr
    outcomes = {c["claim"]: c["outcome"] for c in report["checks"]}
    assert outcomes["entities.items.list"] == "passed"
    assert outcomes["entities.items.get"] == "passed"
    with start_runtime(copy, server, grants=GRANTS, env=env_of(server, style), verified=True) as rt:
        for per_page in (4, 35):
            ids, total = walk(rt.url, per_page)
            assert (ids, total) == (ALL_IDS, 35), per_page
        middle = httpx.get(
            f"{rt.url}/api/collections/items/records",
            params={"page": 3, "perPage": 4},
            headers=AGENT,
        ).json()
    assert [item["id"] for item in middle["items"]] == ALL_IDS[8:12]
