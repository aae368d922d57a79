"""What a run withholds from serving: one write, one field of a write, a route the upstream
does not implement, and with `--scope` everything outside it."""

from __future__ import annotations

import pytest

from mapper.verify import Report, VerifyOptions, run_verification
from runtime.mapping import withhold

from .fake import MAPPING_YAML, FakeApi, mapping

pytestmark = pytest.mark.anyio

# The cards entity as a probe writes it from a spec: its routes are the spec's.
FROM_SPEC = MAPPING_YAML.replace(
    "    path: /api/cards/\n", "    path: /api/cards/\n    evidence: [openapi]\n"
)


async def run(*quirks: str, text: str = MAPPING_YAML, **options: tuple[str, ...]) -> Report:
    return await run_verification(
        mapping(text), VerifyOptions(**options), transport=FakeApi(*quirks).transport
    )


async def test_a_delete_route_the_spec_declares_and_the_upstream_lacks_is_withheld() -> None:
    report = await run("no-delete-route", text=FROM_SPEC)
    checks = {r.claim: r for r in report.results}
    delete = checks["entities.cards.write.delete"]
    assert delete.outcome == "unproven" and delete.note is not None
    assert "not implemented by the upstream" in delete.note and "404 to DELETE" in delete.note
    assert report.outcome == "partly-verified" and report.stampable
    [refusal] = [r for r in report.refusals if r.entity == "cards"]
    assert (refusal.claim, refusal.scope, refusal.op, refusal.field) == (
        "entities.cards.write.delete", "writes", "delete", None,
    )  # fmt: skip
    assert report.stamp().partial
    _, withheld = withhold(mapping(FROM_SPEC), report.refusals)
    assert withheld.write_refusals("cards", "delete") == ("entities.cards.write.delete",)
    assert withheld.write_refusals("cards", "create", ["title"]) == ()
    assert withheld.write_refusals("cards", "update", ["title"]) == ()


async def test_without_the_spec_a_404_delete_is_the_upstreams_failure() -> None:
    report = await run("no-delete-route")
    failed = {r.claim: r.failure for r in report.failures}  # cards has no DELETE route
    failure = failed["entities.cards.write.delete"]
    assert failure is not None and type(failure).__name__ == "DeleteFoundNothing"
    assert failure.wrong == "upstream"


async def test_a_dropped_field_withholds_that_write_of_that_field_only() -> None:
    report = await run("drop-done")
    refusals = [r for r in report.refusals if r.claim == "entities.cards.write.create"]
    assert [(r.scope, r.op, r.field) for r in refusals] == [("writes", "create", "done")]
    _, withheld = withhold(mapping(), report.refusals)
    assert "cards" not in withheld.writes
    assert withheld.write_refusals("cards", "create", ["title", "done"]) == (
        "entities.cards.write.create (done)",
    )
    assert withheld.write_refusals("cards", "create", ["title"]) == ()


async def test_a_query_parameter_the_spec_declares_and_the_upstream_ignores_is_withheld() -> None:
    declared = MAPPING_YAML.replace(
        'done: {"=": done}', 'done: {"=": {param: done, evidence: [openapi]}}'
    )
    report = await run("ignore-done-filter", text=declared)
    done = next(r for r in report.results if r.claim == "entities.cards.filter.done.=")
    assert done.outcome == "unproven" and "not implemented by the upstream" in str(done.note)
    assert report.outcome == "partly-verified"
    [refusal] = report.refusals
    assert (refusal.scope, refusal.field, refusal.op) == ("filter", "done", "=")
    served, withheld = withhold(mapping(declared), report.refusals)
    assert "=" not in served.entities["cards"].filters.get("done", {})
    assert "cards" in withheld.pushdowns


async def test_a_scope_is_stamped_and_everything_outside_it_withheld() -> None:
    report = await run(scope=("lists",))
    assert report.outcome == "verified" and report.stampable
    assert {r.entity for r in report.results if r.entity} == {"lists"}
    outside = {(r.claim, r.scope) for r in report.unverified}
    assert ("entities.cards", "reads") in outside
    assert ("operations.reset-everything", "operation") in outside
    served, withheld = withhold(mapping(), report.refusals)
    assert set(served.entities) == {"lists"} and "cards" in withheld.reads
    assert "reset-everything" in withheld.operations  # it answers 403, naming why


async def test_only_still_stamps_nothing() -> None:
    report = await run(only=("lists",))
    assert report.outcome == "verified" and not report.stampable and not report.unverified
