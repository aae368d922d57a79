"""PocketBase 0.40.6 (`samples/pocketbase_kanban`), probed, verified and served end to end.

One real PocketBase runs for the module (seed `rich`). The probe reads its
collection schema with the superuser token and writes
`mappings/pocketbase-kanban.probed.yaml` byte for byte; `a2map verify` proves a
copy; the runtime serves that copy through the verification gate. Every read
and write through it is checked against PocketBase itself, and PocketBase's own
request log (`GET /api/logs`) shows what the runtime asked it: whole filter
expressions in its own language, and the protocol's page when paging is delegated.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fixtures.runtime import start_runtime
from tests.fixtures.stacks import StackServer, start_pocketbase

from .pocketbase_cases import (
    CARDS,
    INFERRED,
    READS,
    REFUSALS,
    UNMAPPED,
    Read,
    Refusal,
    asked_of,
    logged,
)
from .support import (
    GRANTS,
    MAPPINGS,
    Through,
    checked_in_form,
    dig,
    lint,
    probe_twice,
    verified_copy,
    without_url_default,
)

NAME = "pocketbase-kanban.probed.yaml"
CHECKED_IN = MAPPINGS / NAME


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_pocketbase(seed="rich") as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"POCKETBASE_KANBAN_URL": server.url, "POCKETBASE_KANBAN_TOKEN": str(server.token)}


@pytest.fixture(scope="module")
def probed(server: StackServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    args = [server.url, "--app-id", "pocketbase-kanban",
            "--header", "Authorization: ${POCKETBASE_KANBAN_TOKEN}"]  # fmt: skip
    return probe_twice(tmp_path_factory, NAME, args, env_of(server))


@pytest.fixture(scope="module")
def verified(
    server: StackServer, probed: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    return verified_copy(CHECKED_IN, tmp_path_factory.mktemp("verify"), env_of(server))


@pytest.fixture(scope="module")
def through(server: StackServer, verified: tuple[Path, dict[str, Any]]) -> Iterator[Through]:
    copy, _ = verified
    with start_runtime(copy, server, grants=GRANTS, env=env_of(server), verified=True) as rt:
        yield Through(server, rt)


# --------------------------------------------------------------------------- probe


def test_probing_twice_gives_the_checked_in_bytes(probed: list[Path]) -> None:
    first, second = (p.read_bytes() for p in probed)
    assert first == second
    # Checked in as `${X_URL}`: the default is the port the sample happened to run on.
    assert checked_in_form(first) == CHECKED_IN.read_bytes(), (
        "re-probe changed: run a2map probe and review the diff"
    )


def test_the_probed_mapping_lints(probed: list[Path]) -> None:
    result = lint(probed[0])
    assert result.exit_code == 0, result.output


def test_no_url_token_or_record_value_is_written(server: StackServer, probed: list[Path]) -> None:
    text = without_url_default(probed[0].read_text(), "POCKETBASE_KANBAN_URL", server.url)
    for leak in (server.url.rsplit(":", 1)[1], "127.0.0.1", str(server.token)[:20],
                 "cardseed", "listdoing", "2026-", "pbc_"):  # fmt: skip
        assert leak not in text
    assert 'baseUrl: "${POCKETBASE_KANBAN_URL}"' in text


@pytest.mark.parametrize(("where", "expected"), INFERRED, ids=[w for w, _ in INFERRED])
def test_what_the_probe_infers(probed: list[Path], where: str, expected: Any) -> None:
    assert dig(yaml.safe_load(probed[0].read_text()), where) == expected


def test_system_and_auth_collections_are_listed_as_unmapped(probed: list[Path]) -> None:
    doc = yaml.safe_load(probed[0].read_text())
    assert sorted(doc["entities"]) == ["boards", "cards", "lists", "tags"]
    assert [(u["path"], u["reason"].split(":")[0]) for u in doc["unmapped"]] == UNMAPPED


# --------------------------------------------------------------------------- verify


def test_the_verifier_proves_the_probed_mapping(verified: tuple[Path, dict[str, Any]]) -> None:
    _, report = verified
    assert report["outcome"] == "verified" and report["summary"]["failed"] == 0
    assert report["cleanup"]["leftovers"] == []
    notes = {c["claim"]: c["note"] for c in report["checks"] if c["outcome"] == "passed"}
    for ref in ("cards.fields.list", "cards.fields.tags", "lists.fields.board"):
        assert notes[f"entities.{ref}.upstreamOnDelete"] == "set-null, as declared"
    assert report["proven"]["filters"]["cards"]["due"] == ["=", "!=", ">", ">=", "<", "<="]
    assert report["proven"]["filters"]["cards"]["tags"] == ["?="]
    assert "due" in report["proven"]["sorts"]["cards"]


# --------------------------------------------------------------------------- reads


def _paged(case: Read) -> dict[str, str]:
    return {"sort": case.sort, "page": case.page, "perPage": case.per_page}


@pytest.fixture(scope="module")
def served(through: Through) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Every read through the runtime, then what PocketBase logged it was asked meanwhile.

    The log is written in batches, each entry stamped with its request's time: a
    marker request made first bounds the window, so earlier requests never count.
    """
    marker = f"marker{uuid.uuid4().hex[:9]}"
    through.direct(CARDS, filter=f'id = "{marker}"')
    found = logged(through, f'data.url ~ "{marker}"', bool)
    assert found, "PocketBase did not log the marker request"
    answers = {}
    for case in READS:
        answer = through.records("cards", filter=case.filter, **_paged(case))
        assert answer.status_code == 200, answer.text
        answers[case.name] = answer.json()
    wanted = {c.sent for c in READS if c.sent is not None}
    entries = logged(
        through, f'created > "{found[0]["created"]}"',
        lambda items: wanted <= {asked_of(e).get("filter") for e in items},
    )  # fmt: skip
    return answers, [asked_of(e) for e in entries]


@pytest.mark.parametrize("case", READS, ids=lambda c: c.name)
def test_reads_match_pocketbase(through: Through, served: Any, case: Read) -> None:
    answers, _ = served
    direct = through.direct(CARDS, filter=case.direct, **_paged(case)).json()
    everything = through.direct(CARDS, perPage=1).json()["totalItems"]
    assert 0 < direct["totalItems"] < everything
    got = answers[case.name]
    assert [r["id"] for r in got["items"]] == [r["id"] for r in direct["items"]]
    assert (got["totalItems"], got["totalPages"]) == (direct["totalItems"], direct["totalPages"])


@pytest.mark.parametrize("case", [c for c in READS if c.sent], ids=lambda c: c.name)
def test_pocketbase_was_told_the_whole_filter(served: Any, case: Read) -> None:
    _, asked = served
    told = [a for a in asked if a.get("filter") == case.sent]
    assert told, f"PocketBase never saw filter={case.sent!r}"
    if case.delegated:  # one request, for exactly the protocol's page
        assert told == [{"filter": case.sent, **_paged(case)}], asked
    else:  # a bounded scan, narrowed by what could be told
        assert {a["perPage"] for a in told} == {"1000"}


def test_pocketbase_alone_would_count_blank_dates(through: Through, served: Any) -> None:
    answers, _ = served
    own = through.direct(CARDS, filter='due < "2026-10-01"', perPage=1).json()["totalItems"]
    assert own > answers["ordering never reaches a blank date"]["totalItems"]


def test_expand_gives_what_pocketbase_expands(through: Through) -> None:
    query = {"filter": 'list = "listdoing000001" && tags:length > 0', "sort": "title,id"}
    ours = through.records("cards", expand="list,tags", **query).json()["items"]
    theirs = through.direct(CARDS, expand="list,tags", perPage=500, **query).json()["items"]
    assert ours and [r["id"] for r in ours] == [r["id"] for r in theirs]
    for mine, pb in zip(ours, theirs, strict=True):
        assert mine["expand"]["list"]["title"] == pb["expand"]["list"]["title"] == "Doing"
        names = [t["name"] for t in mine["expand"]["tags"]]
        assert names == [t["name"] for t in pb["expand"]["tags"]] and names
    # The tags were read in one listing, asked for by id in PocketBase's own language.
    tags = sorted({t for card in theirs for t in card["tags"]})
    asked = "(" + " || ".join(f'id = "{t}"' for t in tags) + ")"
    tagged = "/api/collections/tags/records"
    found = logged(through, f'data.url ~ "{tags[0]}"', lambda items: any(
        asked_of(e).get("filter") == asked for e in items), path=tagged)  # fmt: skip
    assert len(tags) > 1 and asked in [asked_of(e).get("filter") for e in found]


def test_blanks_read_as_null(through: Through) -> None:
    blank = through.direct(CARDS, filter='due = "" && tags:length = 0', perPage=1).json()
    stored = blank["items"][0]
    assert (stored["due"], stored["tags"]) == ("", [])
    record = through.a2app("GET", f"{CARDS}/{stored['id']}").json()
    assert (record["due"], record["tags"], record["title"]) == (None, [], stored["title"])


# --------------------------------------------------------------------------- writes


def _count(through: Through, entity: str) -> int:
    return int(through.direct(f"/api/collections/{entity}/records", perPage=1).json()["totalItems"])


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.name)
def test_guard_refusals_never_reach_pocketbase(through: Through, case: Refusal) -> None:
    before = _count(through, case.entity)
    answer = through.a2app("POST", f"/api/collections/{case.entity}/records", case.body)
    assert answer.status_code == 400, answer.text
    assert [v["code"] for v in answer.json()["violations"]] == list(case.codes)
    assert _count(through, case.entity) == before


def test_pocketbase_refusals_come_back_as_field_violations(through: Through) -> None:
    before = _count(through, "tags")
    answer = through.a2app("POST", "/api/collections/tags/records", {"name": "bug"})
    body = answer.json()
    assert (answer.status_code, body["code"]) == (400, "upstream_rejected"), body
    assert [v["field"] for v in body["violations"]] == ["name"]
    assert _count(through, "tags") == before


def test_create_update_delete_are_stored_in_pocketbase(through: Through) -> None:
    values = {"title": "Served write", "list": "listdoing000001", "priority": "urgent",
              "due": "2027-01-02 09:30:00.000Z", "done": False,
              "tags": ["tagbug000000001", "tagops000000001"]}  # fmt: skip
    created = through.a2app("POST", CARDS, values)
    assert created.status_code == 200, created.text
    card = created.json()
    stored = through.direct(f"{CARDS}/{card['id']}").json()
    assert {k: stored[k] for k in values} == values == {k: card[k] for k in values}
    changes = {"title": "Served write, done", "done": True, "due": "2027-02-03T04:05:06Z",
               "priority": None, "tags": []}  # fmt: skip
    patched = through.a2app("PATCH", f"{CARDS}/{card['id']}", changes)
    assert patched.status_code == 200, patched.text
    stored = through.direct(f"{CARDS}/{card['id']}").json()
    assert (stored["due"], stored["priority"], stored["tags"]) == (
        "2027-02-03 04:05:06.000Z",
        "",
        [],
    )
    assert (patched.json()["priority"], patched.json()["list"]) == (None, "listdoing000001")
    assert patched.json()["due"] == stored["due"] and stored["title"] == changes["title"]
    cleared = through.a2app("PATCH", f"{CARDS}/{card['id']}", {"due": None})
    assert cleared.json()["due"] is None
    assert through.direct(f"{CARDS}/{card['id']}").json()["due"] == ""
    deleted = through.a2app("DELETE", f"{CARDS}/{card['id']}")
    assert deleted.json() == {"a2app": True, "ok": True, "deleted": card["id"]}
    assert through.direct(f"{CARDS}/{card['id']}").status_code == 404
    again = through.a2app("DELETE", f"{CARDS}/{card['id']}")
    assert (again.status_code, again.json()["code"]) == (404, "record_not_found")


def test_a_referenced_record_is_not_deleted(through: Through) -> None:
    """PocketBase would clear the cards' list; the runtime restricts instead."""
    cards = through.direct(CARDS, filter='list = "listtodo0000001"', perPage=500).json()
    answer = through.a2app("DELETE", "/api/collections/lists/records/listtodo0000001")
    body = answer.json()
    assert (answer.status_code, body["code"]) == (409, "record_referenced")
    assert body["referencedBy"][0]["entity"] == "cards"
    assert through.direct("/api/collections/lists/records/listtodo0000001").status_code == 200
    assert through.direct(CARDS, filter='list = "listtodo0000001"', perPage=500).json() == cards


def test_an_unreferenced_record_is_deleted(through: Through) -> None:
    body = {"title": "Empty list", "position": 9, "board": "boardarchive001"}
    made = through.a2app("POST", "/api/collections/lists/records", body)
    assert made.status_code == 200, made.text
    ident = made.json()["id"]
    path = f"/api/collections/lists/records/{ident}"
    assert through.direct(path).json()["board"] == "boardarchive001"
    gone = through.a2app("DELETE", path)
    assert gone.json()["deleted"] == ident
    assert through.direct(path).status_code == 404
