"""Upstream paths the runtime cannot send as written are refused when a mapping is
checked, each with its code, where it is and the path itself, all at once."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from runtime.mapping import (
    PROBLEM_CODES,
    MappingError,
    Problem,
    check_document,
    load_document,
)
from runtime.upstream import BaseUrl

ROOT = Path(__file__).resolve().parents[3]
BASE: dict[str, Any] = yaml.safe_load(
    (ROOT / "tests" / "runtime" / "mapping" / "valid-base.yaml").read_text()
)
FINISH = "/api/cards/{card}/finish/"

Where = tuple[str | int, ...]


@dataclass(frozen=True)
class Case:
    name: str
    paths: dict[Where, str]  # where in the document -> the path written there
    expected: tuple[tuple[str, str], ...] = ()  # (where, code) of each problem, in order


CARDS: Where = ("entities", "cards", "path")
DETAIL: Where = ("entities", "cards", "detailPath")
LISTING: Where = ("entities", "cards", "list", "path")
LISTS: Where = ("entities", "lists", "path")
REQUEST: Where = ("operations", 0, "request", "path")
JOB: Where = ("operations", 0, "job", "request", "path")

BAD = [
    Case("fragment in a collection path", {CARDS: "/api/cards/#top"},
         (("entities.cards.path", "path-fragment"),)),
    Case("fragment in a record path", {DETAIL: "/api/cards/{id}/#main"},
         (("entities.cards.detailPath", "path-fragment"),)),
    Case("fragment in a listing path", {LISTING: "/api/cards/search/#"},
         (("entities.cards.list.path", "path-fragment"),)),
    Case("fragment after a query", {REQUEST: FINISH + "?notify=0#done"},
         (("operations[0].request.path", "path-fragment"),)),
    Case("fragment in a job's path", {JOB: FINISH + "#x"},
         (("operations[0].job.request.path", "path-fragment"),)),
    Case("scheme-relative collection path", {CARDS: "//evil.example/api/cards/"},
         (("entities.cards.path", "path-absolute"),)),
    Case("scheme-relative record path", {DETAIL: "//evil.example/{id}"},
         (("entities.cards.detailPath", "path-absolute"),)),
    Case("a URL inside an operation's query", {REQUEST: FINISH + "?next=http://evil.example/"},
         (("operations[0].request.path", "path-absolute"),)),
    Case("placeholder in a collection path", {CARDS: "/api/boards/{board}/cards/"},
         (("entities.cards.path", "path-placeholder"),)),
    Case("placeholder in a listing path", {LISTING: "/api/cards/{owner}/"},
         (("entities.cards.list.path", "path-placeholder"),)),
    Case("record path placeholder besides {id}", {DETAIL: "/api/cards/{board}/{id}/"},
         (("entities.cards.detailPath", "path-placeholder"),)),
    Case("empty placeholder in a collection path", {LISTS: "/api/lists/{}/"},
         (("entities.lists.path", "path-placeholder"),)),
    Case("operation placeholder naming no param", {REQUEST: "/api/cards/{cards}/finish/"},
         (("operations[0].request.path", "path-placeholder"),)),
    Case("query in a collection path, no record path", {CARDS: "/api/cards/?format=json"},
         (("entities.cards.path", "path-query-detail"),)),
    Case(
        "every violation at once",
        {LISTS: "//evil.example/lists/", CARDS: "/api/{board}/cards/?a=1#top",
         REQUEST: "/api/cards/{cards}/finish/#x"},
        (("entities.lists.path", "path-absolute"), ("entities.cards.path", "path-fragment"),
         ("entities.cards.path", "path-placeholder"), ("entities.cards.path", "path-query-detail"),
         ("operations[0].request.path", "path-fragment"),
         ("operations[0].request.path", "path-placeholder")),
    ),
]  # fmt: skip

GOOD = [
    Case("plain paths", {CARDS: "/api/cards/", REQUEST: FINISH}),
    Case("non-ASCII", {CARDS: "/api/cartes/données/", DETAIL: "/api/cartes/données/{id}/"}),
    Case("spaces", {LISTS: "/api/my lists/", REQUEST: "/api/cards/{card}/mark done/"}),
    Case("percent-encoded escapes", {CARDS: "/api/cards%2Fall/", DETAIL: "/api/c%23rds/{id}%20/"}),
    Case("a query with its record path",
         {CARDS: "/api/cards?format=json", DETAIL: "/api/cards/{id}?format=json"}),
    Case("a query on a listing and an operation",
         {LISTING: "/api/cards/search?open=1", REQUEST: FINISH + "?notify=0&at=12:00"}),
    Case("a colon and an inner double slash", {CARDS: "/api/v1//cards:list", DETAIL: "/c/{id}"}),
    Case("a job's path with its param", {JOB: FINISH}),
]  # fmt: skip


def _document(paths: dict[Where, str]) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    for where, path in paths.items():
        if where[:3] == ("operations", 0, "job"):
            doc["operations"][0]["job"] = {"request": doc["operations"][0].pop("request")}
        node: Any = doc
        for part in where[:-1]:
            node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
        node[where[-1]] = path
    return doc


@pytest.mark.parametrize("case", BAD, ids=lambda c: c.name)
def test_a_path_the_runtime_cannot_send_is_refused(case: Case) -> None:
    problems = check_document(_document(case.paths))
    rendered = [p.render().split(": ", 2) for p in problems]
    assert [(where, code) for where, code, _ in rendered] == list(case.expected)
    for problem in problems:
        assert problem.code in PROBLEM_CODES
        if problem.message.startswith("'"):  # the path itself, named in the message
            assert problem.message.startswith(f"'{case.paths[problem.path]}' ")


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c.name)
def test_a_path_the_runtime_sends_as_written_passes(case: Case) -> None:
    doc = _document(case.paths)
    assert check_document(doc) == []
    load_document(doc, resolve_env=False)


def test_the_loader_refuses_what_lint_refuses() -> None:
    """Serving loads through the same check: a mapping lint refuses is never served."""
    with pytest.raises(MappingError) as info:
        load_document(_document({CARDS: "/api/cards/#top"}), resolve_env=False)
    assert [p.code for p in info.value.problems] == ["path-fragment"]


def _filled(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "7", path)


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c.name)
def test_the_runtime_joins_every_path_that_passes(case: Case) -> None:
    base = BaseUrl("http://upstream.test/base/")
    for path in case.paths.values():
        assert str(base.join(_filled(path))).startswith("http://upstream.test/base/")


# The rows the join itself refuses (the others it would send, but not as meant).
REFUSED_AT_REQUEST = [
    c for c in BAD if {code for _, code in c.expected} & {"path-fragment", "path-absolute"}
]


@pytest.mark.parametrize("case", REFUSED_AT_REQUEST, ids=lambda c: c.name)
def test_what_is_refused_here_the_runtime_refuses_at_request_time(case: Case) -> None:
    refused = {w for w, code in case.expected if code in ("path-fragment", "path-absolute")}
    base = BaseUrl("http://upstream.test/base/")
    for where, path in case.paths.items():
        if Problem(where, "").render().split(":")[0] in refused:
            with pytest.raises(Exception, match=r"Invalid URL|outside the upstream"):
                base.join(_filled(path))
