"""Record shapes real Rails apps have (`samples/rails_kanban`'s issues, severities and
projects), probed, verified and served end to end.

Issues render their severity as ``{"id": 3, "name": "high"}`` and take ``severity_id`` on
writes. The probe must type it as a ref read from the nested id and written by its column,
the verifier must prove that write name, and a write through the runtime must land upstream
exactly as reported. Projects show no id key: they are named by a slug the client chooses
on create.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

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
    dig,
    lint,
    probe_twice,
    verified_copy,
)

NAME = "rails-nested.probed.yaml"
CHECKED_IN = MAPPINGS / NAME
HEADER = "Authorization: Token ${RAILS_NESTED_TOKEN}"
ISSUES = "/api/collections/issues/records"
SEVERITY = "entities.issues.fields.severity."


@pytest.fixture(scope="module")
def server() -> Iterator[StackServer]:
    with start_rails() as upstream:
        yield upstream


def env_of(server: StackServer) -> dict[str, str]:
    return {"RAILS_NESTED_URL": server.url, "RAILS_NESTED_TOKEN": str(server.token)}


@pytest.fixture(scope="module")
def probed(server: StackServer, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    args = [server.url, "--header", HEADER, "--app-id", "rails-nested"]
    args += ["--collection", "/api/issues", "--collection", "/api/severities"]
    args += ["--collection", "/api/projects", "--collection", "/api/labels"]
    return probe_twice(tmp_path_factory, NAME, args, {"RAILS_NESTED_TOKEN": str(server.token)})


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

INFERRED: list[tuple[str, Any]] = [
    (SEVERITY + "type", "ref"),
    (SEVERITY + "entity", "severities"),
    (SEVERITY + "source", "severity.id"),
    (SEVERITY + "writeSource", "severity_id"),
    (SEVERITY + "required", True),
    ("entities.issues.write", {"wrap": "issue"}),
    ("entities.issues.filter.severity.=.param", "severity_id"),  # filtered by its write name
    ("entities.severities.label", "name"),
    ("entities.issues.fields.labels.type", "list<ref>"),  # a list of nested {id, name}
    ("entities.issues.fields.labels.entity", "labels"),
    ("entities.issues.fields.labels.source", MISSING),  # read where it is: each item's id
    ("entities.issues.fields.labels.writeSource", "label_ids"),
    ("entities.projects.id", {"source": "slug", "type": "string", "client": True}),
    ("entities.projects.detailPath", MISSING),  # <list>/{id}, read by the slug
    ("entities.projects.write", {"wrap": "project"}),
]


def test_probing_twice_gives_the_checked_in_bytes_and_lints(probed: list[Path]) -> None:
    first, second = (p.read_bytes() for p in probed)
    assert first == second
    # Checked in as `${X_URL}`: the default is the port the sample happened to run on.
    assert checked_in_form(first) == CHECKED_IN.read_bytes(), (
        "re-probe changed: run a2map probe and review the diff"
    )
    result = lint(probed[0])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("where", "expected"), INFERRED, ids=[w for w, _ in INFERRED])
def test_the_nested_ref_is_typed_with_its_evidence(
    probed: list[Path], where: str, expected: Any
) -> None:
    assert dig(yaml.safe_load(probed[0].read_text()), where) == expected


def test_the_nested_ref_carries_sample_and_lookup_evidence(probed: list[Path]) -> None:
    evidence = dig(yaml.safe_load(probed[0].read_text()), SEVERITY + "evidence")
    sources = [e if isinstance(e, str) else e["source"] for e in evidence]
    assert {"sample", "lookup"} <= set(sources)
    details = [e["detail"] for e in evidence if isinstance(e, dict)]
    assert "a sampled value resolves at GET /api/severities/{id}" in details
    assert any("'severity_id' takes writes" in d for d in details)
    # the convention, confirmed read-only: the upstream selects exactly by that key
    assert "the upstream filters exactly by 'severity_id': it knows the write name" in details


# --------------------------------------------------------------------------- verify


def test_the_verifier_proves_the_write_name(verified: tuple[Path, dict[str, Any]]) -> None:
    _, report = verified
    assert report["outcome"] == "verified" and report["summary"]["failed"] == 0
    assert report["cleanup"]["leftovers"] == []
    notes = {c["claim"]: c["note"] for c in report["checks"] if c["outcome"] == "passed"}
    claim = SEVERITY.removesuffix(".") + ".writeSource"
    assert notes[claim] == "written as severity_id, read back from severity.id as sent"
    assert notes[SEVERITY + "required"].startswith("the upstream refuses")
    labels = "entities.issues.fields.labels.writeSource"
    assert notes[labels] == "written as label_ids, read back from labels as sent"
    assert notes["entities.projects.id.client"].startswith("stored and read back under the chosen")
    assert report["proven"]["filters"]["issues"] == {"done": ["="], "severity": ["="]}


def test_verify_left_the_upstream_as_found(
    through: Through, verified: tuple[Path, dict[str, Any]]
) -> None:
    assert through.total("/api/issues", "per_page") == 8
    assert through.total("/api/severities", "per_page") == 4
    assert through.total("/api/labels", "per_page") == 3
    assert [p["slug"] for p in through.direct_all("/api/projects", "per_page")] == [
        "apollo", "gemini", "mercury-7"
    ]  # fmt: skip


# --------------------------------------------------------------------------- serve


def test_reads_show_the_ref_as_the_upstream_stores_it(through: Through) -> None:
    answer = through.records("issues", perPage="500")
    assert answer.status_code == 200, answer.text
    served = {r["id"]: r["severity"] for r in answer.json()["items"]}
    direct = through.direct_all("/api/issues", "per_page")
    assert served == {str(r["id"]): str(r["severity"]["id"]) for r in direct}


def test_a_filter_on_the_nested_ref_returns_the_upstreams_set(through: Through) -> None:
    case = Read("by severity", {"filter": 'severity = "3"'}, {"severity_id": "3"})
    through.check_read(case, "issues", "/api/issues", "per_page")


def test_writes_land_upstream_under_the_write_name_as_reported(through: Through) -> None:
    body = {"title": "Served issue", "severity": "4", "labels": ["1", "3"]}
    created = through.a2app("POST", ISSUES, body)
    assert created.status_code == 200, created.text
    issue = created.json()
    assert {k: issue[k] for k in body} == body
    stored = through.direct(f"/api/issues/{issue['id']}").json()
    assert stored["severity"] == {"id": 4, "name": "critical"} and "severity_id" not in stored
    assert [label["id"] for label in stored["labels"]] == [1, 3] and "label_ids" not in stored
    patched = through.a2app("PATCH", f"{ISSUES}/{issue['id']}", {"severity": "1", "labels": ["2"]})
    assert patched.status_code == 200, patched.text
    assert (patched.json()["severity"], patched.json()["labels"]) == ("1", ["2"])
    stored = through.direct(f"/api/issues/{issue['id']}").json()
    assert (stored["severity"]["id"], stored["labels"]) == (1, [{"id": 2, "name": "ui"}])
    gone = through.a2app("DELETE", f"{ISSUES}/{issue['id']}")
    assert gone.json()["deleted"] == issue["id"]
    assert through.direct(f"/api/issues/{issue['id']}").status_code == 404


REFUSALS = [
    Refusal("a dangling nested ref", "POST", ISSUES, {"title": "R1", "severity": "99"},
            ("invalid_ref",)),
    Refusal("every violation at once", "POST", ISSUES, {"severity": "99", "done": "yes"},
            ("missing_required", "invalid_ref", "invalid_boolean")),
]  # fmt: skip


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.name)
def test_invalid_writes_never_reach_the_upstream(through: Through, case: Refusal) -> None:
    before = through.total("/api/issues", "per_page")
    answer = through.a2app(case.method, case.path, case.body)
    assert answer.status_code == 400, answer.text
    assert sorted(v["code"] for v in answer.json()["violations"]) == sorted(case.codes)
    assert through.total("/api/issues", "per_page") == before


def test_a_delete_rails_restricts_is_refused_by_the_runtime(through: Through) -> None:
    answer = through.a2app("DELETE", "/api/collections/severities/records/3")
    assert (answer.status_code, answer.json()["code"]) == (409, "record_referenced")
    assert through.direct("/api/severities/3").status_code == 200


PROJECTS = "/api/collections/projects/records"


def test_a_client_chosen_id_lands_upstream_as_the_record_s_slug(through: Through) -> None:
    created = through.a2app("POST", PROJECTS, {"id": "vostok-1", "name": "Vostok"})
    assert created.status_code == 200, created.text
    assert created.json()["id"] == "vostok-1" and created.json()["name"] == "Vostok"
    stored = through.direct("/api/projects/vostok-1").json()
    assert (stored["slug"], stored["name"]) == ("vostok-1", "Vostok") and "id" not in stored
    read = through.a2app("GET", f"{PROJECTS}/vostok-1")
    assert read.json()["id"] == "vostok-1"
    patched = through.a2app("PATCH", f"{PROJECTS}/vostok-1", {"name": "Vostok One"})
    assert patched.status_code == 200 and patched.json()["name"] == "Vostok One"
    assert through.direct("/api/projects/vostok-1").json()["name"] == "Vostok One"
    gone = through.a2app("DELETE", f"{PROJECTS}/vostok-1")
    assert gone.json()["deleted"] == "vostok-1"
    assert through.direct("/api/projects/vostok-1").status_code == 404


ID_REFUSALS = [
    Refusal("no id", "POST", PROJECTS, {"name": "No id"}, ("missing_required",)),
    Refusal("an id that would steer the path", "POST", PROJECTS, {"id": "a/b", "name": "X"},
            ("invalid_string",)),
    Refusal("an id change", "PATCH", f"{PROJECTS}/apollo", {"id": "zeus"}, ("unknown_field",)),
]  # fmt: skip


@pytest.mark.parametrize("case", ID_REFUSALS, ids=lambda c: c.name)
def test_ids_the_client_may_not_send_never_reach_the_upstream(
    through: Through, case: Refusal
) -> None:
    before = through.direct_all("/api/projects", "per_page")
    answer = through.a2app(case.method, case.path, case.body)
    assert answer.status_code == 400, answer.text
    assert [v["code"] for v in answer.json()["violations"]] == list(case.codes)
    assert [v["field"] for v in answer.json()["violations"]] == ["id"]
    assert through.direct_all("/api/projects", "per_page") == before


def test_describe_tells_the_agent_to_choose_the_id(through: Through) -> None:
    doc = through.a2app("GET", "/api/_a2app/describe/api/projects").json()
    assert doc["id"] == {"type": "string", "required": True, "chosenBy": "client"}
    assert "id" not in through.a2app("GET", "/api/_a2app/describe/api/issues").json()
