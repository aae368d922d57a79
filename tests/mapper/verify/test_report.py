"""The outputs of a run: JSON report, JUnit XML, the human report and the stamp."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from mapper.verify import Report, VerifyOptions, junit_xml, render, run_verification

from .fake import TOKEN, FakeApi, mapping

pytestmark = pytest.mark.anyio


async def run(*quirks: str) -> Report:
    return await run_verification(
        mapping(), VerifyOptions(), mapping_file="fake.yaml", transport=FakeApi(*quirks).transport
    )


async def test_json_report_names_every_claim_and_counts_requests() -> None:
    report = await run("ignore-done-filter")
    doc = json.loads(json.dumps(report.to_json()))
    assert doc["outcome"] == "refused" and doc["summary"]["failed"] == 1
    assert doc["requests"]["total"] == sum(doc["requests"]["byEntity"].values()) > 0
    assert doc["hostsContacted"] == ["fake.test:"]
    [failed] = [c for c in doc["checks"] if c["outcome"] == "failed"]
    assert failed["failure"]["type"] == "FilterIgnored"
    assert failed["failure"]["wrong"] == "mapping"
    assert failed["failure"]["request"].startswith("GET /api/cards/?")
    assert failed["failure"]["corrections"] == [
        {"path": ["entities", "cards", "filter", "done", "="], "action": "remove", "value": None}
    ]
    assert TOKEN not in json.dumps(doc)


async def test_junit_has_one_case_per_claim_with_failures_and_skips() -> None:
    report = await run("ignore-done-filter")
    root = ET.fromstring(junit_xml(report))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(report.results) == int(suite.get("tests", "0"))
    failures = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["entities.cards.filter.done.= [filter_narrows]"]
    failure = failures[0].find("failure")
    assert failure is not None and "change:" in (failure.text or "")
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert len(skipped) == report.count("unproven") == int(suite.get("skipped", "0"))


async def test_the_human_report_says_who_is_wrong_and_what_to_change() -> None:
    text = render(await run("drop-done"))
    assert "✗ entities.cards.write.create: a write was accepted but not stored" in text
    assert "wrong:    the upstream (the foreign API misbehaves)" in text
    assert "change:   mark done readOnly: true" in text
    assert "REFUSED: fake" in text.splitlines()[-1]


async def test_what_was_learned_is_one_line_per_entity_and_attribute() -> None:
    report = await run("position-not-null")
    text = render(report)
    learned = text.split("learned (the mapping says nothing", 1)[1].split("\n\n", 1)[0]
    assert "    - cards: nullable: true (a null clears it): list, priority, done" in learned
    assert "    - lists: nullable: false (the upstream refuses a null (This field may not be " \
        "null.)): position" in learned  # fmt: skip
    assert "    - cards: upstreamChecksRef: true (" in learned
    assert "    - operation finish-card: upstreamChecksRef: true (the upstream answers HTTP 404" \
        " to a call naming a missing cards record): card" in learned  # fmt: skip
    assert len(report.learned) == len(json.loads(json.dumps(report.to_json()))["learned"]) == 6
    assert not {x.claim for x in report.learned} & {r.claim for r in report.results}


async def test_only_a_whole_successful_run_is_stampable() -> None:
    report = await run()
    assert report.stampable
    stamp = report.stamp()
    assert stamp.content_hash == mapping().content_hash and stamp.fresh_for(mapping())
    assert stamp.filter_proven("cards", "done", "=") and stamp.sort_proven("cards", "created")
    assert {c.claim for c in stamp.checks} == {r.claim for r in report.results}
    partial = await run_verification(
        mapping(), VerifyOptions(only=("lists",)), transport=FakeApi().transport
    )
    assert partial.outcome == "verified" and not partial.stampable
    assert not (await run("drop-done")).stampable


@pytest.mark.parametrize(
    ("quirk", "claim", "scope"),
    [
        ("ignore-done-filter", "entities.cards.filter.done.=", "filter"),
        ("ignore-ordering", "entities.cards.sort.created", "sort"),
        ("drop-done", "entities.cards.write.create", "writes"),
        ("duplicate-pages", "entities.cards.list", "reads"),
    ],
)
async def test_a_refused_claim_says_what_it_withholds(quirk: str, claim: str, scope: str) -> None:
    report = await run(quirk)
    assert report.outcome == "refused" and report.partly_stampable and not report.stampable
    refusals = {r.claim: r for r in report.refusals}
    assert refusals[claim].scope == scope and refusals[claim].entity == "cards"
    stamp = report.stamp()
    assert stamp.partial and set(stamp.refused) == set(report.refusals)
    listed = json.loads(json.dumps(report.to_json()))["refused"]
    assert {"claim": claim, "scope": scope} in [
        {"claim": r["claim"], "scope": r["scope"]} for r in listed
    ]
