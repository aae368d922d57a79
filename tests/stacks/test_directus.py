"""Directus 11.1.0 (`samples/directus_kanban`), probed from its root URL, verified and served.

One real Directus runs for the module (seed `rich`). The probe is given nothing but
the root URL and the static token: it finds the collections through Directus's own
metadata API (`GET /collections`, `GET /fields/{collection}`), types them from it,
and reads records at `/items/{collection}` under `{data: ...}`.

Verification proves every claim. Directus fills `date_created` on create whatever was
sent, but stores a value sent on update (its `date-created` special acts on create
only; `date-updated` on update only): the probe calls both read-only, set by the
server at those writes (`serverSets`), as the metadata says, and `read_only_ignored`
proves each at its own write. The runtime serves the verified copy through the gate;
every read and write through it is compared with Directus's own answers. No mapping is
checked in (the checklist probes it afresh).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.fixtures.runtime import start_runtime
from tests.fixtures.stacks import StackServer, start_directus

from .support import GRANTS, MISSING, Through, dig, lint, probe_twice, verify_copy

PROBED = "directus-kanban.probed.yaml"
CARDS = "/api/collections/cards/records"


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_directus(seed="rich") as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"DIRECTUS_KANBAN_URL": server.url, "DIRECTUS_KANBAN_TOKEN": str(server.token)}


@pytest.fixture(scope="module")
def probed(server: StackServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    args = [server.url, "--app-id", "directus-kanban",
            "--header", "Authorization: Bearer ${DIRECTUS_KANBAN_TOKEN}"]  # fmt: skip
    return probe_twice(tmp_path_factory, PROBED, args, env_of(server))


def _counts(server: StackServer) -> dict[str, int]:
    counts = {}
    for name in ("boards", "lists", "tags", "cards", "cards_tags"):
        answer = httpx.get(server.collection(name), params={"aggregate[count]": "*"},
                           headers=server.headers)  # fmt: skip
        counts[name] = int(answer.json()["data"][0]["count"])
    return counts


@pytest.fixture(scope="module")
def verified(
    server: StackServer, probed: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Any, dict[str, int], dict[str, int]]:
    before = _counts(server)
    copy, done, report = verify_copy(probed[0], tmp_path_factory.mktemp("verify"), env_of(server))
    return copy, (done, report), before, _counts(server)


@pytest.fixture(scope="module")
def through(server: StackServer, verified: Any) -> Iterator[Through]:
    copy, (done, _), _, _ = verified
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    env = env_of(server)
    with start_runtime(copy, server, grants=GRANTS, env=env, verified=True) as rt:
        yield Through(server, rt)


# --------------------------------------------------------------------------- probe


def test_probing_twice_gives_the_same_bytes(probed: list[Path]) -> None:
    first, second = (p.read_bytes() for p in probed)
    assert first == second


def test_the_probed_mapping_lints(probed: list[Path]) -> None:
    result = lint(probed[0])
    assert result.exit_code == 0, result.output


def test_no_secret_or_record_value_is_written(server: StackServer, probed: list[Path]) -> None:
    text = probed[0].read_text()
    for leak in (str(server.token), "Welcome", "Main board", "2026-"):
        assert leak not in text
    assert "${DIRECTUS_KANBAN_TOKEN}" in text


CARD = "entities.cards.fields."
LIST = "entities.lists.fields."
INFERRED: list[tuple[str, Any]] = [
    ("upstream.auth", {"type": "bearer", "token": "${DIRECTUS_KANBAN_TOKEN}"}),
    ("upstream.pagination", {"style": "offset", "size": "limit", "offset": "offset",
                             "items": "data"}),
    ("upstream.envelope", {"item": "data"}), ("upstream.notFoundStatus", 403),
    ("upstream.dialect", "directus"), ("upstream.errors", "graphql"),
    ("entities.cards.filter.due.<.param", "filter[due][_lt]"),
    ("entities.cards.filter.id.!=.param", "filter[id][_neq]"),
    ("entities.cards.filter.title.!=", MISSING),  # SQL's != skips nulls: id only
    ("entities.cards.filter.date_created", MISSING),  # datetimes stay local
    ("entities.cards.sort", {"param": "sort", "desc": "-",
                             "fields": ["title", "priority", "due", "done", "blocked",
                                        "estimate"]}),
    ("entities.cards.path", "/items/cards"), ("entities.cards.id", {"source": "id",
                                                                    "type": "integer"}),
    ("entities.cards.evidence.0",
     {"source": "metadata", "detail": "GET /collections and /fields/cards: collection cards"}),
    (CARD + "title", {"type": "string", "required": True, "max": 200,
                      "evidence": [{"source": "metadata",
                                    "detail": "string; max length 200; required"}, "sample"],
                      "confidence": "high"}),
    (CARD + "list.type", "ref"), (CARD + "list.entity", "lists"),
    (CARD + "list.upstreamOnDelete", "set-null"), (LIST + "board.upstreamOnDelete", "set-null"),
    (CARD + "list.evidence.0", {"source": "metadata",
                                "detail": "integer; special m2o; references lists"}),
    (CARD + "priority.type", "enum"), (CARD + "priority.values",
                                       ["none", "low", "medium", "high", "urgent"]),
    (CARD + "priority.valuesClosed", False), (CARD + "due.format", "YYYY-MM-DD"),
    (CARD + "done.type", "boolean"), (CARD + "done.codec", MISSING),
    (CARD + "estimate.type", "number"),
    # No cast-boolean: the metadata says boolean, the wire is SQLite's 0 and 1.
    (CARD + "blocked.type", "boolean"), (CARD + "blocked.codec", "int-bool"),
    (CARD + "date_created.type", "datetime"), (CARD + "date_created.readOnly", True),
    (CARD + "date_created.serverSets", ["create"]), (CARD + "date_updated.readOnly", True),
    (CARD + "date_updated.serverSets", ["update"]), (CARD + "id", MISSING),
    (LIST + "board.type", "ref"), (LIST + "board.entity", "boards"),
    (LIST + "position.type", "number"), ("entities.boards.fields.archived.type", "boolean"),
]  # fmt: skip


@pytest.mark.parametrize(("where", "expected"), INFERRED, ids=[w for w, _ in INFERRED])
def test_what_the_probe_infers(probed: list[Path], where: str, expected: Any) -> None:
    doc = yaml.safe_load(probed[0].read_text())
    if ".evidence.0" in where:
        head, _, index = where.rpartition(".")
        assert dig(doc, head)[int(index)] == expected
    else:
        assert dig(doc, where) == expected


def test_system_collections_and_derived_fields_are_unmapped_a_junction_is_not(
    probed: list[Path],
) -> None:
    doc = yaml.safe_load(probed[0].read_text())
    # The junction of the many-to-many is a collection like any other (hidden in the
    # admin app's navigation only): its rows are how a card's tags are written.
    assert sorted(doc["entities"]) == ["boards", "cards", "cards_tags", "lists", "tags"]
    reasons = {u["path"]: u["reason"].split(":")[0] for u in doc["unmapped"]}
    assert reasons.pop("/collections") == "spec-document"
    derived = {u["path"]: u["reason"] for u in doc["unmapped"] if u["path"] in (
        "/items/boards", "/items/cards")}  # fmt: skip
    assert derived == {
        "/items/boards": "derived-field: field lists: no column (o2m): the upstream derives "
        "it, nothing is stored",
        "/items/cards": "derived-field: field tags: no column (m2m): the upstream derives it, "
        "nothing is stored",
    }
    assert "lists" not in doc["entities"]["boards"]["fields"]
    assert "tags" not in doc["entities"]["cards"]["fields"]
    junction = doc["entities"]["cards_tags"]["fields"]
    assert (junction["cards_id"]["entity"], junction["tags_id"]["entity"]) == ("cards", "tags")
    del reasons["/items/boards"], reasons["/items/cards"]
    assert reasons and all(p.startswith("/items/directus_") for p in reasons)
    assert set(reasons.values()) == {"system-collection"}


# --------------------------------------------------------------------------- verify


def test_the_verifier_proves_every_claim(verified: Any) -> None:
    _, (done, report), _, _ = verified
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert report["outcome"] == "verified" and report["summary"]["failed"] == 0
    passed = {c["claim"] for c in report["checks"] if c["outcome"] == "passed"}
    for claim in ("entities.cards.get", "entities.cards.write.delete",
                  "entities.cards.fields.list.type", "entities.cards.write.create"):  # fmt: skip
        assert claim in passed, sorted(passed)
    assert report["summary"]["passed"] >= 80
    notes = {c["claim"]: c["note"] for c in report["checks"] if c["outcome"] == "passed"}
    for ref in ("cards.fields.list", "lists.fields.board"):
        assert notes[f"entities.{ref}.upstreamOnDelete"] == "set-null, as declared"
    # Each managed timestamp is proven at the write Directus sets it at, and only there.
    for name in ("boards", "cards", "lists", "tags"):
        assert notes[f"entities.{name}.fields.date_created.readOnly"] == (
            "on create the upstream ignores a value sent and stores its own"
        )
        assert notes[f"entities.{name}.fields.date_updated.readOnly"] == (
            "on update the upstream ignores a value sent and stores its own"
        )
    proven = report["proven"]["filters"]["cards"]
    assert proven["due"] == ["=", ">", ">=", "<", "<="] and proven["id"] == ["=", "!="]


def test_the_verifier_leaves_directus_as_it_found_it(verified: Any) -> None:
    _, (_, report), before, after = verified
    assert report["cleanup"]["leftovers"] == []
    assert after == before
    assert {k: before[k] for k in ("boards", "lists", "tags", "cards")} == {
        "boards": 2, "lists": 2, "tags": 5, "cards": 61}  # fmt: skip
    assert before["cards_tags"] > 0


# --------------------------------------------------------------------------- reads


def _directus(through: Through, name: str, **params: Any) -> list[dict[str, Any]]:
    answer = through.direct(f"/items/{name}", limit=-1, sort="id", **params)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


def test_every_card_is_walked_in_pages(through: Through) -> None:
    ids = []
    for page in (1, 2, 3):
        answer = through.records("cards", sort="id", page=str(page), perPage="25").json()
        ids.extend(item["id"] for item in answer["items"])
    assert answer["totalItems"] == 61
    assert sorted(ids, key=int) == [str(c["id"]) for c in _directus(through, "cards")]
    assert len(set(ids)) == len(ids)


READS = [
    ("done in doing", 'done = true && list = "2"',
     {"filter[done][_eq]": "true", "filter[list][_eq]": 2}),
    ("urgent or high", 'priority = "urgent" || priority = "high"',
     {"filter[priority][_in]": "urgent,high"}),
    ("due before", 'due < "2026-10-01"', {"filter[due][_lt]": "2026-10-01"}),
    ("estimate at least", "estimate >= 6", {"filter[estimate][_gte]": 6}),
    ("blocked, 0/1 on the wire", "blocked = true", {"filter[blocked][_eq]": 1}),
    ("not blocked", "blocked = false && done = false",
     {"filter[blocked][_eq]": 0, "filter[done][_eq]": "false"}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "query", "direct"), READS, ids=[r[0] for r in READS])
def test_reads_match_directus(through: Through, name: str, query: str, direct: Any) -> None:
    answer = through.records("cards", filter=query, sort="id", perPage="500")
    assert answer.status_code == 200, answer.text
    got = [item["id"] for item in answer.json()["items"]]
    expected = [str(c["id"]) for c in _directus(through, "cards", **direct)]
    assert 0 < len(expected) < 61
    assert sorted(got, key=int) == expected


def test_one_record_reads_as_directus_answers_it(through: Through) -> None:
    theirs = through.direct("/items/cards/3").json()["data"]
    ours = through.a2app("GET", f"{CARDS}/3").json()
    assert ours["id"] == "3" and ours["list"] == str(theirs["list"])
    for key in ("title", "priority", "due", "done", "estimate"):
        assert ours[key] == theirs[key], key
    blocked = through.a2app("GET", f"{CARDS}/7").json()["blocked"]
    assert (blocked, through.direct("/items/cards/7").json()["data"]["blocked"]) == (True, 1)
    missing = through.a2app("GET", f"{CARDS}/999999")
    assert (missing.status_code, missing.json()["code"]) == (404, "record_not_found")


# --------------------------------------------------------------------------- writes


def test_create_update_delete_land_in_directus(through: Through) -> None:
    values = {"title": "Served write", "list": "2", "priority": "urgent", "due": "2027-01-02",
              "done": False, "estimate": 5}  # fmt: skip
    created = through.a2app("POST", CARDS, values)
    assert created.status_code in (200, 201), created.text
    card = created.json()
    stored = through.direct(f"/items/cards/{card['id']}").json()["data"]
    assert {**{k: stored[k] for k in values}, "list": str(stored["list"])} == values
    assert {k: card[k] for k in values} == values
    patched = through.a2app("PATCH", f"{CARDS}/{card['id']}",
                            {"done": True, "priority": None, "blocked": True})  # fmt: skip
    assert patched.status_code == 200, patched.text
    stored = through.direct(f"/items/cards/{card['id']}").json()["data"]
    assert (stored["done"], stored["priority"], stored["title"]) == (True, None, "Served write")
    assert (stored["blocked"], patched.json()["blocked"]) == (1, True)  # 0/1 on the wire
    assert (patched.json()["done"], patched.json()["date_updated"]) == (
        True,
        stored["date_updated"],
    )
    deleted = through.a2app("DELETE", f"{CARDS}/{card['id']}")
    assert deleted.json() == {"a2app": True, "ok": True, "deleted": card["id"]}
    assert through.direct(f"/items/cards/{card['id']}").status_code == 403  # Directus's 404
    again = through.a2app("DELETE", f"{CARDS}/{card['id']}")
    assert (again.status_code, again.json()["code"]) == (404, "record_not_found")


def test_an_invalid_create_is_refused_whole_and_never_reaches_directus(through: Through) -> None:
    before = len(_directus(through, "cards"))
    body = {"title": "x" * 201, "list": "999999", "estimate": "many", "date_created": "now"}
    answer = through.a2app("POST", CARDS, body)
    assert answer.status_code == 400, answer.text
    fields = sorted(v["field"] for v in answer.json()["violations"])
    assert fields == ["date_created", "estimate", "list", "title"]
    assert len(_directus(through, "cards")) == before


def test_a_tag_is_put_on_a_card_through_the_junction(through: Through) -> None:
    junction = "/api/collections/cards_tags/records"
    made = through.a2app("POST", junction, {"cards_id": "1", "tags_id": "2"})
    assert made.status_code in (200, 201), made.text
    tags = through.direct("/items/cards/1", fields="tags.tags_id").json()["data"]["tags"]
    assert [t["tags_id"] for t in tags] == [2]
    gone = through.a2app("DELETE", f"{junction}/{made.json()['id']}")
    assert gone.status_code == 200, gone.text
    assert through.direct("/items/cards/1", fields="tags").json()["data"]["tags"] == []
