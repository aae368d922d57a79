"""Each failure class, shown on an upstream that is wrong in exactly one way (`fake.FakeApi`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mapper.verify import (
    RUN_MARK,
    Correction,
    Report,
    VerificationFailure,
    VerifyOptions,
    corrected_text,
    run_verification,
)
from mapper.verify._failures import (
    ClientIdIgnored,
    CreateOnlyFieldUpdatable,
    DeleteEffectMismatch,
    EnumNotClosed,
    FilterIgnored,
    FindByNotUnique,
    ListDuplicates,
    PathNotFound,
    ReadAfterDeleteSucceeded,
    ReadOnlyFieldWritable,
    RequiredNotEnforced,
    SortIgnored,
    UndeclaredRequired,
    UpdateOnlyFieldCreatable,
    UpdateRefused,
    WriteAnswerMissing,
    WriteNameIgnored,
    WriteNotPersisted,
)
from runtime.mapping import load_mapping_text

from .fake import BASE, MAPPING_YAML, TOKEN, FakeApi, mapping

pytestmark = pytest.mark.anyio


async def verify(api: FakeApi, options: VerifyOptions | None = None) -> Report:
    return await run_verification(mapping(), options or VerifyOptions(), transport=api.transport)


def leftovers(api: FakeApi) -> list[str]:
    return [t for table in api.tables for t in api.titles(table) if RUN_MARK.match(t)]


@dataclass(frozen=True)
class Scenario:
    quirk: str
    claim: str
    failure: type[VerificationFailure]
    wrong: str
    correction: Correction | None


SCENARIOS = [
    Scenario(
        "ignore-done-filter", "entities.cards.filter.done.=", FilterIgnored, "mapping",
        Correction(("entities", "cards", "filter", "done", "="), "remove"),
    ),
    Scenario(
        "title-optional", "entities.cards.fields.title.required", RequiredNotEnforced, "mapping",
        Correction(("entities", "cards", "fields", "title", "required"), "remove"),
    ),
    Scenario(
        "position-required", "entities.lists.write.create.minimal", UndeclaredRequired,
        "mapping", Correction(("entities", "lists", "fields", "position", "required"), "set", True),
    ),
    Scenario(
        "priority-open", "entities.cards.fields.priority.valuesClosed", EnumNotClosed, "mapping",
        Correction(("entities", "cards", "fields", "priority", "valuesClosed"), "set", False),
    ),
    Scenario(
        "created-writable", "entities.cards.fields.created.readOnly", ReadOnlyFieldWritable,
        "mapping", Correction(("entities", "cards", "fields", "created", "readOnly"), "remove"),
    ),
    Scenario(
        "cascade", "entities.cards.fields.list.upstreamOnDelete", DeleteEffectMismatch, "mapping",
        Correction(("entities", "cards", "fields", "list", "upstreamOnDelete"), "set", "cascade"),
    ),
    Scenario(
        "ignore-ordering", "entities.cards.sort.title", SortIgnored, "mapping",
        Correction(("entities", "cards", "sort", "fields"), "remove-item", "title"),
    ),
    Scenario(
        "drop-done", "entities.cards.write.create", WriteNotPersisted, "upstream",
        Correction(("entities", "cards", "fields", "done", "readOnly"), "set", True),
    ),
    Scenario(
        "delete-noop", "entities.cards.write.delete", ReadAfterDeleteSucceeded, "upstream",
        Correction(("entities", "cards", "write", "delete"), "set", False),
    ),
    Scenario("duplicate-pages", "entities.cards.list", ListDuplicates, "upstream", None),
]  # fmt: skip


async def test_a_faithful_upstream_verifies_and_is_left_as_found() -> None:
    api = FakeApi()
    before = {table: dict(rows) for table, rows in api.tables.items()}
    report = await verify(api)
    assert report.outcome == "verified", [r.as_dict() for r in report.failures]
    assert api.tables == before  # seed records untouched, the run's own records gone
    assert report.removed > 0 and not report.leftovers
    assert report.proven_filters["cards"] == {"title": ["=", "~"], "done": ["="], "priority": ["="]}
    assert report.proven_sorts["cards"] == ["id", "title", "created"]


BY_KEY = """
  - name: card-by-{key}
    module: board
    entity: cards
    destructive: false
    readOnly: true
    params:
      {key}: {{type: string, required: true}}
    request: {{method: GET, path: "/api/cards/{{{key}}}/by-{key}/", send: none}}
"""


async def _by_key(key: str) -> tuple[Report, FakeApi]:
    text = MAPPING_YAML.replace("operations:\n", "operations:" + BY_KEY.format(key=key), 1)
    api = FakeApi()
    report = await run_verification(
        load_mapping_text(text, env={"FAKE_URL": BASE, "FAKE_TOKEN": TOKEN}),
        VerifyOptions(), transport=api.transport,
    )  # fmt: skip
    return report, api


async def test_an_operation_naming_a_record_by_a_made_up_value_is_not_proven() -> None:
    """A code the verifier makes up names no card: the 404 proves nothing either way."""
    report, _ = await _by_key("code")
    (result,) = [r for r in report.results if r.claim == "operations.card-by-code"]
    assert result.outcome == "unproven" and result.note is not None
    assert "made-up code, answered HTTP 404: not proven" in result.note
    assert report.failures == [] and report.outcome == "partly-verified" and report.stampable
    assert [r.claim for r in report.refusals] == ["operations.card-by-code"]
    assert report.refusals[0].unproven


async def test_a_path_placeholder_named_for_a_field_takes_the_run_s_own_value() -> None:
    """`{title}` under /api/cards/ is a card's title: the run calls it with its own card's,
    so the 404 of a route the upstream lacks is the mapping's fault, not a made-up value's."""
    report, api = await _by_key("title")
    (result,) = [r for r in report.results if r.claim == "operations.card-by-title"]
    assert result.outcome == "failed" and result.failure is not None
    assert result.failure.wrong == "mapping"
    called = [str(r.url) for r in api.requests if "/by-title/" in str(r.url)]
    assert called and all("/api/cards/a2v-" in url for url in called), called


async def test_an_upstream_busy_under_concurrent_checks_is_checked_one_at_a_time() -> None:
    """Two creates answered 503: the check runs again alone, then after a pause, and the
    run still proves every claim."""
    api = FakeApi("busy-twice")
    before = {table: dict(rows) for table, rows in api.tables.items()}
    report = await verify(api)
    assert report.outcome == "verified", [r.as_dict() for r in report.failures]
    assert api.tables == before
    assert sum(1 for r in api.requests if r.method == "POST") > 2


@pytest.mark.parametrize("case", SCENARIOS, ids=lambda s: s.quirk)
async def test_each_disproved_claim_is_named_with_evidence_and_fix(case: Scenario) -> None:
    api = FakeApi(case.quirk)
    report = await verify(api)
    assert report.outcome == "refused"
    result = next(r for r in report.results if r.claim == case.claim)
    failure = result.failure
    assert result.outcome == "failed" and isinstance(failure, case.failure), result.as_dict()
    assert failure.wrong == case.wrong
    assert failure.fix and failure.message and failure.request and failure.response
    if case.correction is not None:
        assert case.correction in failure.corrections
    text = str(report.to_json())
    assert TOKEN not in text
    if case.quirk != "delete-noop":
        assert not leftovers(api) and not report.leftovers
    else:
        assert report.leftovers  # reported, never hidden


WHERE_SET = ("entities", "cards", "fields", "created", "serverSets")
SET_ON_CREATE = MAPPING_YAML.replace(
    "created: {type: datetime, readOnly: true}",
    "created: {type: datetime, readOnly: true, serverSets: [create]}",
)


async def test_a_field_the_server_sets_on_create_is_proven_on_create_only() -> None:
    """Stored when sent on update (as Directus's date-created is), set by the server on create."""
    assert SET_ON_CREATE != MAPPING_YAML
    api = FakeApi("created-writable")
    report = await run_verification(
        mapping(SET_ON_CREATE), VerifyOptions(), transport=api.transport
    )
    assert report.outcome == "verified", [r.as_dict() for r in report.failures]
    notes = {r.claim: r.note for r in report.results}
    assert notes["entities.cards.fields.created.readOnly"] == (
        "on create the upstream ignores a value sent and stores its own"
    )
    assert not leftovers(api) and not report.leftovers


@pytest.mark.parametrize(
    ("writes", "fix"),
    [("[create]", Correction(WHERE_SET, "remove")),
     ("[create, update]", Correction(WHERE_SET, "remove-item", "create"))],
    ids=["create-only", "create-and-update"],
)  # fmt: skip
async def test_a_field_the_server_does_not_set_on_create_is_refused_with_its_fix(
    writes: str, fix: Correction
) -> None:
    api = FakeApi("created-kept")
    text = SET_ON_CREATE.replace("serverSets: [create]", f"serverSets: {writes}")
    report = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    result = next(r for r in report.results if r.claim == "entities.cards.fields.created.readOnly")
    failure = result.failure
    assert isinstance(failure, ReadOnlyFieldWritable) and failure.wrong == "mapping"
    assert failure.corrections == (fix,)
    assert "on create" in failure.message and failure.request and failure.response
    assert not leftovers(api) and not report.leftovers


async def test_read_only_sends_nothing_but_reads_and_says_what_it_skipped() -> None:
    api = FakeApi()
    report = await verify(api, VerifyOptions(read_only=True))
    assert report.outcome == "verified" and report.read_only
    assert {r.method for r in api.requests} == {"GET"}
    skipped = {r.claim: r.note for r in report.results if r.outcome == "unproven"}
    assert skipped["entities.cards.write.create"] == "not run: --read-only"
    assert report.proven_filters["cards"]["title"] == ["=", "~"]  # proven on existing records
    assert report.stamp().read_only


@pytest.mark.parametrize(
    ("include", "archived", "reset_note"),
    [
        (
            False,
            0,
            "destructive: not run without --include-destructive; served behind its approval",
        ),
        (True, 1, "it would act on records the verifier did not create"),
    ],
    ids=["destructive-skipped", "destructive-on-own-record"],
)
async def test_destructive_operations_run_only_when_asked_and_only_on_own_records(
    include: bool, archived: int, reset_note: str
) -> None:
    api = FakeApi()
    seeded = set(api.tables["lists"])
    report = await verify(api, VerifyOptions(include_destructive=include))
    calls = [r for r in api.requests if r.url.path.endswith("/archive/")]
    assert len(calls) == archived
    assert all(r.url.path.split("/")[3] not in seeded for r in calls)
    assert not any(r.url.path.endswith("/reset/") for r in api.requests)
    notes = {r.claim: (r.outcome, r.note) for r in report.results}
    assert notes["operations.reset-everything"] == ("unproven", reset_note)
    assert notes["operations.archive-list"][0] == ("passed" if include else "unproven")


async def test_wrong_credentials_refuse_before_anything_else_runs() -> None:
    api = FakeApi()
    bad = load_mapping_text(MAPPING_YAML, env={"FAKE_URL": BASE, "FAKE_TOKEN": "not-the-token"})
    report = await run_verification(bad, VerifyOptions(), transport=api.transport)
    assert report.outcome == "refused"
    first = report.results[0]
    assert first.claim == "upstream.auth" and first.outcome == "failed"
    assert type(first.failure).__name__ == "CredentialsRefused"
    assert all(r.outcome == "unproven" for r in report.results[1:])
    assert {r.method for r in api.requests} == {"GET"} and len(api.requests) == 1


async def test_an_earlier_interrupted_run_is_swept_first() -> None:
    api = FakeApi()
    left = api._insert("cards", {"title": "a2v-0123456789 cards 3"})
    also = api._insert("lists", {"title": "a2v-0123456789 lists 1 upd"})
    mine = api._insert("cards", {"title": "a2v-not-a-run marker"})
    report = await verify(api)
    assert report.swept == {"cards": 1, "lists": 1}
    assert left["id"] not in api.tables["cards"] and also["id"] not in api.tables["lists"]
    assert mine["id"] in api.tables["cards"]  # only the run marker's exact shape is swept


async def test_records_that_cannot_be_deleted_are_written_only_when_allowed() -> None:
    undeletable = MAPPING_YAML.replace(
        "    sort: {param: ordering, fields: [id, title, created]}\n",
        "    sort: {param: ordering, fields: [id, title, created]}\n    write: {delete: false}\n",
    )
    assert undeletable != MAPPING_YAML
    model = load_mapping_text(undeletable, env={"FAKE_URL": BASE, "FAKE_TOKEN": TOKEN})
    api = FakeApi()
    report = await run_verification(model, VerifyOptions(), transport=api.transport)
    create = next(r for r in report.results if r.claim == "entities.cards.write.create")
    assert create.outcome == "unproven" and "--allow-leftovers" in str(create.note)
    assert not leftovers(api)  # not one card written
    assert not [r for r in api.requests if r.method == "POST" and "/cards/" in r.url.path]

    api = FakeApi()
    options = VerifyOptions(allow_leftovers=True)
    report = await run_verification(model, options, transport=api.transport)
    create = next(r for r in report.results if r.claim == "entities.cards.write.create")
    assert create.outcome == "passed", create.as_dict()


@pytest.mark.parametrize(("write_source", "outcome"), [("list", "passed"), ("list_ref", "failed")])
async def test_a_write_name_is_proven_by_writing_it_alone(write_source: str, outcome: str) -> None:
    text = MAPPING_YAML.replace(
        "list: {type: ref, entity: lists, upstreamOnDelete: set-null}",
        f"list: {{type: ref, entity: lists, writeSource: {write_source}}}",
    )
    api = FakeApi()
    report = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    result = next(r for r in report.results if r.claim == "entities.cards.fields.list.writeSource")
    assert result.outcome == outcome, result.as_dict()
    if outcome == "failed":
        failure = result.failure
        assert isinstance(failure, WriteNameIgnored) and failure.wrong == "mapping"
        assert "list_ref" in failure.message and "writeSource" in failure.fix
        assert failure.request and failure.request.startswith("GET")
    else:
        assert result.note == "written as list, read back from list as sent"
    assert not leftovers(api)


async def test_a_client_chosen_id_the_upstream_replaces_is_the_mappings_fault() -> None:
    text = MAPPING_YAML.replace(
        "    path: /api/lists/\n",
        "    path: /api/lists/\n    id: {source: id, type: string, client: true}\n",
        1,
    )
    api = FakeApi()
    report = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    result = next(r for r in report.results if r.claim == "entities.lists.id.client")
    failure = result.failure
    assert result.outcome == "failed" and isinstance(failure, ClientIdIgnored)
    assert failure.wrong == "mapping" and failure.request and failure.request.startswith("POST")
    assert Correction(("entities", "lists", "id", "client"), "remove") in failure.corrections
    assert not leftovers(api) and not report.leftovers  # the record it did make is removed


@pytest.mark.parametrize(
    ("find_by", "quirks", "outcome", "said"),
    [
        ("title", ("unique-titles",), "passed", ""),
        ("title", (), "failed", "already holds"),  # one holder now, but a twin is accepted
        ("done", (), "failed", "done="),  # many hold it already
    ],
)
async def test_the_field_a_create_is_found_by_must_single_it_out(
    find_by: str, quirks: tuple[str, ...], outcome: str, said: str
) -> None:
    text = MAPPING_YAML.replace(
        "    sort: {param: ordering, fields: [id, title, created]}\n",
        "    sort: {param: ordering, fields: [id, title, created]}\n"
        f"    write: {{findBy: {find_by}}}\n",
    )
    api = FakeApi(*quirks)
    report = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    result = next(r for r in report.results if r.claim == "entities.cards.write.findBy")
    assert result.outcome == outcome, result.as_dict()
    if outcome == "failed":
        assert isinstance(result.failure, FindByNotUnique) and result.failure.wrong == "mapping"
        assert said in result.failure.message
    else:
        assert result.note == (
            "one record holds the title sent, reads back by its id; a second is refused"
        )
    assert not leftovers(api) and not report.leftovers


@pytest.mark.parametrize(("answer", "outcome"), [('""', "passed"), ("card", "failed")])
async def test_a_write_answer_key_is_proven_by_a_create(answer: str, outcome: str) -> None:
    text = MAPPING_YAML.replace(
        "    sort: {param: ordering, fields: [id, title, created]}\n",
        "    sort: {param: ordering, fields: [id, title, created]}\n"
        f"    write: {{answer: {answer}}}\n",
    )
    api = FakeApi()
    report = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    result = next(r for r in report.results if r.claim == "entities.cards.write.answer")
    assert result.outcome == outcome, result.as_dict()
    if outcome == "failed":
        failure = result.failure
        assert isinstance(failure, WriteAnswerMissing) and failure.wrong == "mapping"
        assert failure.request and failure.request.startswith("POST") and failure.response
    assert not leftovers(api) and not report.leftovers  # a record made anyway is swept


CREATE_ONLY = MAPPING_YAML.replace(
    "priority: {type: enum, values: [low, high]}",
    "priority: {type: enum, values: [low, high], createOnly: true}",
)
UPDATE_ONLY = MAPPING_YAML.replace(
    "done: {type: boolean}", "done: {type: boolean, updateOnly: true}", 1
)


@dataclass(frozen=True)
class OnlyAt:
    """A field written at one write only: the mapping, the quirk that makes the upstream
    refuse it at the other, and the failure when the upstream stores it there anyway."""

    text: str
    quirk: str
    field: str
    key: str
    refused_on: str  # the write the upstream refuses it at
    left_out_of: str  # the round-trip claim whose body leaves it out
    carried_by: str | None  # the round-trip claim whose body carries it, where asserted
    failure: type[VerificationFailure]


ONLY_AT = [
    pytest.param(
        OnlyAt(CREATE_ONLY, "priority-fixed", "priority", "createOnly", "update",
               "entities.cards.write.update", None, CreateOnlyFieldUpdatable),
        id="create-only",
    ),
    pytest.param(
        OnlyAt(UPDATE_ONLY, "done-on-update", "done", "updateOnly", "create",
               "entities.cards.write.create", "entities.cards.write.update",
               UpdateOnlyFieldCreatable),
        id="update-only",
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", ONLY_AT)
async def test_a_field_refused_at_one_write_is_proven_and_left_out_of_it(case: OnlyAt) -> None:
    assert case.text != MAPPING_YAML
    api = FakeApi(case.quirk)
    report = await run_verification(mapping(case.text), VerifyOptions(), transport=api.transport)
    assert report.outcome == "verified", [r.as_dict() for r in report.failures]
    notes = {r.claim: r.note for r in report.results}
    claim = f"entities.cards.fields.{case.field}.{case.key}"
    assert notes[claim] == f"the upstream refuses it on {case.refused_on}"
    assert case.field not in str(notes[case.left_out_of])
    if case.carried_by is not None:
        assert case.field in str(notes[case.carried_by])
    assert not leftovers(api) and not report.leftovers


@pytest.mark.parametrize("case", ONLY_AT)
async def test_a_field_the_upstream_stores_at_the_other_write_is_the_mappings_fault(
    case: OnlyAt,
) -> None:
    api = FakeApi()
    report = await run_verification(mapping(case.text), VerifyOptions(), transport=api.transport)
    claim = f"entities.cards.fields.{case.field}.{case.key}"
    failure = next(r for r in report.results if r.claim == claim).failure
    assert isinstance(failure, case.failure) and failure.wrong == "mapping"
    where = ("entities", "cards", "fields", case.field, case.key)
    assert failure.corrections == (Correction(where, "remove"),)
    assert failure.request and failure.response
    assert not leftovers(api) and not report.leftovers


async def test_without_create_only_the_update_round_trip_sends_the_field_and_is_refused() -> None:
    report = await verify(FakeApi("priority-fixed"))
    result = next(r for r in report.results if r.claim == "entities.cards.write.update")
    assert isinstance(result.failure, UpdateRefused)


async def test_a_rate_limited_query_is_asked_again_as_the_upstream_says() -> None:
    """429 with Retry-After is nobody's fault: the run waits, slows down, and proves it."""
    api = FakeApi("rate-limited")
    report = await verify(api)
    assert report.outcome == "verified", [r.as_dict() for r in report.failures]
    assert api.limited > 2  # answered 429 twice, then asked again and answered
    assert report.proven_filters["cards"]["title"] == ["=", "~"]


async def test_a_query_rate_limited_past_the_budget_is_not_proven_and_nobody_is_blamed() -> None:
    api = FakeApi("rate-limited-always")
    report = await verify(api)
    (result,) = [r for r in report.results if r.claim == "entities.cards.filter.title.~"]
    assert result.outcome == "unproven" and result.failure is None
    assert result.note is not None and result.note.startswith("not proven: upstream rate-limited")
    assert report.failures == []  # no filter or sort blamed, no removal proposed
    limited = ["entities.cards.filter.title.~", "entities.lists.filter.title.~"]
    assert sorted(r.claim for r in report.refusals) == limited  # both ask `title__icontains`
    assert "~" not in report.proven_filters["cards"]["title"]


async def test_a_404_at_the_mapping_s_listing_path_is_one_failure_of_the_mapping() -> None:
    """A path typo is the mapping's fault, said once; what needs that path is not run."""
    text = MAPPING_YAML.replace("path: /api/cards/", "path: /api/cardz/", 1)
    api = FakeApi()
    report = await run_verification(
        load_mapping_text(text, env={"FAKE_URL": BASE, "FAKE_TOKEN": TOKEN}),
        VerifyOptions(), transport=api.transport,
    )  # fmt: skip
    (failure,) = [r.failure for r in report.failures]
    assert isinstance(failure, PathNotFound) and failure.wrong == "mapping"
    assert "entities.cards.path" in failure.fix
    cards = [r for r in report.results if r.entity == "cards" and r.check != "list_walks"]
    assert cards and all(r.outcome == "unproven" for r in cards)
    assert all("answers 404 at /api/cardz/" in str(r.note) for r in cards)
    assert not leftovers(api) and not report.leftovers


POSITION = "position: {type: number}"
LIST_REF = "list: {type: ref, entity: lists, upstreamOnDelete: set-null}"
CARD_PARAM = "card: {type: ref, entity: cards, required: true}"
CARD_PARAM_SAYS = CARD_PARAM[:-1] + ", upstreamChecksRef: "
FINISH_REF = "operations.finish-card.params.card.upstreamChecksRef"


@dataclass(frozen=True)
class Attribute:
    """A claim learned from the upstream, as the mapping makes it (or not) and as it is."""

    name: str
    declared: tuple[str, str] | None  # (the field's text, as declared), None: unchanged
    quirk: str | None
    claim: str
    value: bool

    @property
    def path(self) -> tuple[str | int, ...]:
        """Where a correction sets it: an operation by its index in the mapping."""
        parts: list[str | int] = list(self.claim.split("."))
        if parts[0] == "operations":
            parts[1] = 0  # finish-card, the first operation of the fake's mapping
        return tuple(parts)


ATTRIBUTES = [
    Attribute("null-cleared-learned", None, None, "entities.lists.fields.position.nullable", True),
    Attribute("null-refused-learned", None, "position-not-null",
              "entities.lists.fields.position.nullable", False),
    Attribute("missing-ref-refused-learned", None, None,
              "entities.cards.fields.list.upstreamChecksRef", True),
    Attribute("missing-ref-stored-learned", None, "list-unchecked",
              "entities.cards.fields.list.upstreamChecksRef", False),
    Attribute("op-missing-ref-refused-learned", None, None, FINISH_REF, True),
    Attribute("op-missing-ref-answered-learned", None, "finish-unchecked", FINISH_REF, False),
]  # fmt: skip


@pytest.mark.parametrize("case", ATTRIBUTES, ids=lambda a: a.name)
async def test_what_the_mapping_does_not_say_is_learned_not_passed(case: Attribute) -> None:
    api = FakeApi(*(q for q in (case.quirk,) if q))
    before = {table: dict(rows) for table, rows in api.tables.items()}
    report = await verify(api)
    assert report.outcome == "verified", [r.as_dict() for r in report.failures]
    learned = {x.claim: x for x in report.learned}
    assert case.claim in learned, sorted(learned)
    assert learned[case.claim].corrections == (Correction(case.path, "set", case.value),)
    assert case.claim not in {r.claim for r in report.results}  # no claim: nothing passed
    assert case.claim in str(report.to_json()["learned"])
    assert api.tables == before  # the probed record's values were put back, then removed


DECLARED = [
    Attribute("nullable-false-but-cleared", (POSITION, "position: {type: number, nullable: false}"),
              None, "entities.lists.fields.position.nullable", True),
    Attribute("nullable-true-but-refused", (POSITION, "position: {type: number, nullable: true}"),
              "position-not-null", "entities.lists.fields.position.nullable", False),
    Attribute("checks-ref-but-stores", (LIST_REF, LIST_REF[:-1] + ", upstreamChecksRef: true}"),
              "list-unchecked", "entities.cards.fields.list.upstreamChecksRef", False),
    Attribute("stores-ref-but-checks", (LIST_REF, LIST_REF[:-1] + ", upstreamChecksRef: false}"),
              None, "entities.cards.fields.list.upstreamChecksRef", True),
    Attribute("op-checks-ref-but-answers", (CARD_PARAM, CARD_PARAM_SAYS + "true}"),
              "finish-unchecked", FINISH_REF, False),
    Attribute("op-answers-ref-but-checks", (CARD_PARAM, CARD_PARAM_SAYS + "false}"),
              None, FINISH_REF, True),
]  # fmt: skip


@pytest.mark.parametrize("case", DECLARED, ids=lambda a: a.name)
async def test_a_null_or_a_missing_record_taken_otherwise_than_declared_is_the_mapping_s_fault(
    case: Attribute,
) -> None:
    assert case.declared is not None and case.declared[0] in MAPPING_YAML
    text = MAPPING_YAML.replace(*case.declared)
    api = FakeApi(*(q for q in (case.quirk,) if q))
    report = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    result = next(r for r in report.results if r.claim == case.claim)
    assert result.outcome == "failed" and result.failure is not None, result.as_dict()
    assert result.failure.wrong == "mapping"
    assert result.failure.corrections == (Correction(case.path, "set", case.value),)
    assert not leftovers(api)


@pytest.mark.parametrize("case", ATTRIBUTES, ids=lambda a: a.name)
async def test_what_was_learned_verifies_once_the_mapping_says_it(case: Attribute) -> None:
    api = FakeApi(*(q for q in (case.quirk,) if q))
    report = await verify(api)
    corrections = [c for x in report.learned for c in x.corrections]
    text, missed = corrected_text(MAPPING_YAML, corrections)
    assert not missed and text != MAPPING_YAML
    again = await run_verification(mapping(text), VerifyOptions(), transport=api.transport)
    assert again.outcome == "verified", [r.as_dict() for r in again.failures]
    result = next(r for r in again.results if r.claim == case.claim)
    assert result.outcome == "passed"
    assert not again.learned
