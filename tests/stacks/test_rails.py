"""Rails (`samples/rails_kanban`), probed, verified and served end to end.

One Rails app (seed `rich`), probed from its root URL and its token alone: no spec lists
its collections, its HTML home page links their index pages, whose JSON renderings the
probe finds. The probe writes the checked-in mapping byte for byte, `a2map verify` proves
a copy, the runtime serves it, and every read and write is checked against Rails itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from runtime.mapping import load_mapping
from tests.fixtures.runtime import start_runtime
from tests.fixtures.stacks import StackServer, start_rails

from .support import (
    GRANTS,
    MAPPINGS,
    MISSING,
    Read,
    Refusal,
    Through,
    checked_in_form,
    declared_filters,
    dig,
    ids,
    lint,
    probe_into,
    probe_twice,
    verified_copy,
    walked_in_small_pages,
    without_url_default,
)

NAME = "rails-kanban.probed.yaml"
CHECKED_IN = MAPPINGS / NAME
HEADER = "Authorization: Token ${RAILS_KANBAN_TOKEN}"
COLLECTIONS = ("boards", "cards", "lists", "tags")


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_rails(seed="rich") as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"RAILS_KANBAN_URL": server.url, "RAILS_KANBAN_TOKEN": str(server.token)}


@pytest.fixture(scope="module")
def probed(server: StackServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    args = [server.url, "--header", HEADER, "--app-id", "rails-kanban"]
    return probe_twice(tmp_path_factory, NAME, args, {"RAILS_KANBAN_TOKEN": str(server.token)})


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


def test_without_the_token_the_probe_writes_nothing_and_names_the_header(
    server: StackServer, tmp_path: Path
) -> None:
    """The home page is public, every collection it links answers 401 with Rails'
    `WWW-Authenticate: Token`: exit 2, nothing written, the header to pass named."""
    result = probe_into(tmp_path, NAME, [server.url, "--app-id", "rails-kanban", "--json"], {})
    assert result.exit_code == 2, result.output
    assert not (tmp_path / NAME).exists()
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["header"] == "Authorization: Token ${RAILS_KANBAN_TOKEN}"
    refused = sorted(u["path"] for u in report["unmapped"] if "auth-refused" in u["reason"])
    assert refused == [f"/api/{name}" for name in COLLECTIONS]


def test_no_secret_url_or_record_value_is_written(server: StackServer, probed: list[Path]) -> None:
    text = without_url_default(probed[0].read_text(), "RAILS_KANBAN_URL", server.url)
    for leak in (str(server.token), server.url.rsplit(":", 1)[1], "127.0.0.1", "Welcome", "2026-"):
        assert leak not in text
    assert 'baseUrl: "${RAILS_KANBAN_URL}"' in text and "Token ${RAILS_KANBAN_TOKEN}" in text


def test_the_probed_mapping_loads_with_only_its_secret_set(
    server: StackServer, probed: list[Path]
) -> None:
    mapping = load_mapping(probed[0], env={"RAILS_KANBAN_TOKEN": str(server.token)})
    assert mapping.upstream.base_url == server.url


def test_the_root_url_alone_finds_every_collection_through_the_home_page(
    probed: list[Path],
) -> None:
    doc = yaml.safe_load(probed[0].read_text())
    assert sorted(doc["entities"]) == list(COLLECTIONS)
    page = "linked from the HTML page /; JSON by Accept: application/json"
    linked = {"source": "links", "detail": page}
    for name in COLLECTIONS:
        entity = doc["entities"][name]
        assert entity["path"] == f"/api/{name}" and "detailPath" not in entity
        assert linked in entity["evidence"]
    home = {
        "path": "/",
        "method": "GET",
        "reason": "api-root: an HTML page linking the collections",
    }
    assert doc["unmapped"] == [home]
    assert doc["probe"]["sources"][0] == "links: / (HTML)"


CARD = "entities.cards.fields."
INFERRED: list[tuple[str, Any]] = [
    ("upstream.auth", {"type": "header", "name": "Authorization",
                       "value": "Token ${RAILS_KANBAN_TOKEN}"}),
    ("upstream.pagination", {"style": "link", "page": "page", "size": "per_page", "items": "",
                             "totalHeader": "X-Total-Count"}),
    ("upstream.errors", "rails"), ("upstream.dialect", "none"),
    ("entities.cards.path", "/api/cards"), ("entities.cards.id.type", "integer"),
    ("entities.cards.write", {"wrap": "card"}), ("entities.lists.write", {"wrap": "list"}),
    (CARD + "list_id.type", "ref"), (CARD + "list_id.entity", "lists"),
    (CARD + "list_id.required", True), (CARD + "list_id.upstreamOnDelete", MISSING),
    (CARD + "title.required", True), (CARD + "priority.required", MISSING),
    (CARD + "priority.valuesClosed", False), (CARD + "tag_ids.type", "list<ref>"),
    (CARD + "tag_ids.entity", "tags"), (CARD + "due.format", "YYYY-MM-DD"),
    (CARD + "created_at.readOnly", True),
    ("entities.lists.fields.board_id.required", True), ("entities.tags.fields.name.required", True),
    ("entities.cards.sort", {"param": "sort", "desc": "-", "fields": [
        "title", "priority", "due", "done", "created_at", "updated_at"]}),
]  # fmt: skip

# Exactly Rails' equality filters the data can show; lists.board_id holds one value only.
FILTERS = {
    "boards": {"archived": ["="]},
    "cards": {"list_id": ["="], "priority": ["="], "due": ["="], "done": ["="]},
    "lists": {},
    "tags": {"name": ["="]},
}

NOTES = [
    "entities.cards.filter: ignored: id = (id), title = (title), created_at = (created_at), "
    "updated_at = (updated_at), tag_ids ?= (tag_ids)",
    "entities.lists.filter: untested (no value splits the listing): board_id =, created_at =, "
    "updated_at =",
    "entities.cards.sort: not declared for id, list_id (integer ids: ordered as numbers "
    "upstream, as text by the protocol)",
    "upstream.auth: required (sample: GET without it answered 401)",
]


@pytest.mark.parametrize(("where", "expected"), INFERRED, ids=[w for w, _ in INFERRED])
def test_what_the_probe_infers(probed: list[Path], where: str, expected: Any) -> None:
    assert dig(yaml.safe_load(probed[0].read_text()), where) == expected


def test_filters_are_exactly_those_the_probes_proved(probed: list[Path]) -> None:
    doc = yaml.safe_load(probed[0].read_text())
    assert declared_filters(doc) == FILTERS
    assert set(NOTES) <= set(doc["probe"]["notes"])


# --------------------------------------------------------------------------- verify


def test_the_verifier_proves_the_probed_mapping(verified: tuple[Path, dict[str, Any]]) -> None:
    _, report = verified
    assert report["outcome"] == "verified" and report["summary"]["failed"] == 0
    assert report["cleanup"]["leftovers"] == []
    notes = {c["claim"]: c["note"] for c in report["checks"] if c["outcome"] == "passed"}
    assert notes["entities.cards.fields.title.required"].startswith("the upstream refuses")
    assert notes["entities.cards.fields.list_id.required"].startswith("the upstream refuses")
    # The mapping says nothing of these: what the upstream does is learned, not passed.
    learned = {x["claim"]: x for x in report["learned"]}
    effect = learned["entities.cards.fields.list_id.upstreamOnDelete"]
    assert effect["text"] == "deleting a lists record acts as cascade"
    assert effect["corrections"][0]["value"] == "cascade"
    checked = learned["entities.cards.fields.list_id.upstreamChecksRef"]
    assert checked["corrections"][0]["value"] is True, checked
    assert "entities.cards.fields.list_id.upstreamOnDelete" not in notes
    assert report["proven"]["filters"]["cards"] == {f: ["="] for f in FILTERS["cards"]}


# --------------------------------------------------------------------------- reads


READS = [
    Read("ref equality, pushed", {"filter": 'list_id = "2"'}, {"list_id": "2"}),
    Read("two pushed conditions", {"filter": 'priority = "high" && done = false'},
         {"priority": "high", "done": "false"}),
    Read("a day, pushed", {"filter": 'due = "2026-10-16"'}, {"due": "2026-10-16"}),
    Read("contains, checked here", {"filter": 'title ~ "review"'},
         lambda rs: [r for r in rs if "review" in r["title"].lower()]),
    Read("a day range, checked here", {"filter": 'due >= "2026-10-01" && due <= "2026-11-30"'},
         lambda rs: [r for r in rs if "2026-10-01" <= (r["due"] or "") <= "2026-11-30"]),
    Read("a null test, checked here", {"filter": "due = null"},
         lambda rs: [r for r in rs if r["due"] is None]),
    Read("sorted upstream", {"sort": "-due,title"}, {"sort": "-due,title"}),
    Read("an enum as text", {"sort": "priority,-created_at"}, {"sort": "priority,-created_at"}),
    Read("integer ids sort as text, here", {"sort": "-id"},
         lambda rs: sorted(rs, key=lambda r: str(r["id"]), reverse=True)),
]  # fmt: skip


@pytest.mark.parametrize("case", READS, ids=lambda c: c.name)
def test_reads_match_the_upstream(through: Through, case: Read) -> None:
    through.check_read(case, "cards", "/api/cards", "per_page")


PAGES = [(1, 10), (2, 10), (7, 10), (3, 25)]


@pytest.mark.parametrize(("page", "size"), PAGES, ids=[f"{p}x{s}" for p, s in PAGES])
def test_pages_match_the_upstream(through: Through, page: int, size: int) -> None:
    direct = through.direct("/api/cards", sort="title", page=page, per_page=size)
    through.check_page("cards", "title", page, size, direct)


def test_the_runtime_walks_the_upstreams_link_headers(
    through: Through, verified: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    server = through.upstream
    listed = walked_in_small_pages(verified[0], server, env_of(server), tmp_path, 7)
    assert len(listed) > 7 * 8 and listed == ids(through.direct_all("/api/cards", "per_page"))


def test_expand_follows_refs_to_the_upstream_record(through: Through) -> None:
    through.check_expand("list_id", "/api/lists", "2", "tag_ids", "/api/tags")


# --------------------------------------------------------------------------- writes


CARDS, LISTS = "/api/collections/cards/records", "/api/collections/lists/records"
REFUSALS = [
    Refusal("missing required", "POST", CARDS, {"list_id": "1"}, ("missing_required",)),
    Refusal("blank required on PATCH", "PATCH", f"{CARDS}/1", {"title": ""}, ("missing_required",)),
    Refusal("dangling ref", "POST", CARDS, {"title": "R1", "list_id": "999"}, ("invalid_ref",)),
    Refusal("unknown field", "POST", CARDS, {"title": "R2", "list_id": "1", "x": 1},
            ("unknown_field",)),
    Refusal("read-only timestamp", "POST", CARDS,
            {"title": "R3", "list_id": "1", "created_at": "2020-01-01T00:00:00Z"},
            ("read_only_field",)),
    Refusal("every violation at once", "POST", CARDS,
            {"title": "R4", "list_id": "1", "due": "31-12-2026", "done": "yes"},
            ("invalid_daykey", "invalid_boolean")),
]  # fmt: skip


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.name)
def test_guard_refusals_never_reach_the_upstream(through: Through, case: Refusal) -> None:
    def state() -> tuple[int, Any]:
        return through.total("/api/cards", "per_page"), through.direct("/api/cards/1").json()

    before = state()
    answer = through.a2app(case.method, case.path, case.body)
    assert answer.status_code == 400, answer.text
    assert [v["code"] for v in answer.json()["violations"]] == list(case.codes)
    assert state() == before


REJECTIONS = [
    ("a value outside Rails' inclusion list", "cards",
     {"title": "Rejected", "list_id": "1", "priority": "asap"},
     "priority", "is not included in the list"),
    ("a name Rails keeps unique", "tags", {"name": "bug"}, "name", "has already been taken"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "entity", "body", "field", "message"), REJECTIONS, ids=[r[0] for r in REJECTIONS]
)
def test_rails_422_hashes_become_upstream_rejected(
    through: Through, name: str, entity: str, body: dict[str, Any], field: str, message: str
) -> None:
    total = through.total(f"/api/{entity}", "per_page")
    answer = through.a2app("POST", f"/api/collections/{entity}/records", body)
    doc = answer.json()
    assert (answer.status_code, doc["code"]) == (400, "upstream_rejected"), answer.text
    assert {"code": "upstream_rejected", "field": field, "expected": message} in doc["violations"]
    assert through.total(f"/api/{entity}", "per_page") == total


def test_create_update_delete_are_stored_upstream(through: Through) -> None:
    values = {"title": "Served write", "list_id": "2", "priority": "urgent", "due": "2027-01-02",
              "done": False, "tag_ids": ["1", "3"]}  # fmt: skip
    created = through.a2app("POST", CARDS, values)
    assert created.status_code == 200, created.text
    card = created.json()
    assert {k: card[k] for k in values} == values and card["created_at"]
    stored = through.direct(f"/api/cards/{card['id']}").json()
    assert {k: stored[k] for k in values} == {**values, "list_id": 2, "tag_ids": [1, 3]}
    changes = {"title": "Served write, done", "done": True, "due": None, "tag_ids": ["2"]}
    patched = through.a2app("PATCH", f"{CARDS}/{card['id']}", changes)
    assert patched.status_code == 200, patched.text
    assert {k: patched.json()[k] for k in changes} == changes
    stored = through.direct(f"/api/cards/{card['id']}").json()
    assert {k: stored[k] for k in changes} == {**changes, "tag_ids": [2]}
    deleted = through.a2app("DELETE", f"{CARDS}/{card['id']}")
    assert deleted.json() == {"a2app": True, "ok": True, "deleted": card["id"]}
    assert through.direct(f"/api/cards/{card['id']}").status_code == 404
    again = through.a2app("DELETE", f"{CARDS}/{card['id']}")
    assert (again.status_code, again.json()["code"]) == (404, "record_not_found")


def test_a_delete_rails_would_cascade_is_refused_while_referenced(through: Through) -> None:
    """Rails would destroy the list's cards (dependent: :destroy); the runtime restricts."""
    total = through.total("/api/cards", "per_page")
    answer = through.a2app("DELETE", f"{LISTS}/1")
    body = answer.json()
    assert (answer.status_code, body["code"]) == (409, "record_referenced")
    assert body["referencedBy"][0]["entity"] == "cards"
    assert through.direct("/api/lists/1").status_code == 200
    assert through.total("/api/cards", "per_page") == total


def test_an_unreferenced_record_is_deleted(through: Through) -> None:
    made = through.a2app("POST", LISTS, {"title": "Empty", "position": 9.5, "board_id": "2"})
    assert made.status_code == 200, made.text
    ident = made.json()["id"]
    assert through.direct(f"/api/lists/{ident}").json()["board_id"] == 2
    gone = through.a2app("DELETE", f"{LISTS}/{ident}")
    assert gone.json()["deleted"] == ident
    assert through.direct(f"/api/lists/{ident}").status_code == 404


# --------------------------------------------------------------------------- renderings


def test_the_runtime_serves_rails_json_rendering_by_its_suffix(
    server: StackServer, verified: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """A mapping whose tags are read and written at Rails' `.json` rendering
    (`/api/tags.json`, `/api/tags/{id}.json`), as a probe of an app answering JSON only
    there writes it. The usual detail route of that path (`/api/tags.json/{id}`) does not
    exist, so each record read and write landing shows the runtime used the rendering."""
    doc = yaml.safe_load(verified[0].read_text())
    doc["entities"]["tags"].update(path="/api/tags.json", detailPath="/api/tags/{id}.json")
    variant = tmp_path / NAME
    variant.write_text(yaml.safe_dump(doc, sort_keys=False))
    with start_runtime(variant, server, grants=GRANTS, env=env_of(server)) as rt:
        through = Through(server, rt)
        listed = through.records("tags", perPage="500", sort="name")
        assert listed.status_code == 200, listed.text
        direct = through.direct("/api/tags", sort="name", per_page=100).json()
        assert [t["id"] for t in listed.json()["items"]] == ids(direct)
        made = through.a2app("POST", "/api/collections/tags/records", {"name": "suffixed"})
        assert made.status_code == 200, made.text
        ident = made.json()["id"]
        assert through.direct(f"/api/tags/{ident}").json()["name"] == "suffixed"
        renamed = through.a2app("PATCH", f"/api/collections/tags/records/{ident}",
                                {"name": "suffixed, renamed"})  # fmt: skip
        assert renamed.json()["name"] == "suffixed, renamed"
        assert through.direct(f"/api/tags/{ident}").json()["name"] == "suffixed, renamed"
        read = through.a2app("GET", f"/api/collections/tags/records/{ident}")
        assert read.json()["name"] == "suffixed, renamed"
        gone = through.a2app("DELETE", f"/api/collections/tags/records/{ident}")
        assert gone.json()["deleted"] == ident
        assert through.direct(f"/api/tags/{ident}").status_code == 404
