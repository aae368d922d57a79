"""Merging claims: precedence, refinements by samples, disagreements written down."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe._draft import Claim, Ev
from mapper.probe.decide._merge import FieldInput, merge
from mapper.probe.decide._refs import RefDecision
from mapper.probe.sources import NOT_UPDATED

SPEC_STR = Claim("openapi", type="string", wire="string")
SPEC_NUM = Claim("openapi", type="number", wire="number")
SPEC_ENUM = Claim("openapi", type="enum", values=("a", "b"))
OPT_STR = Claim("options", type="string", required=True)
OPT_REL = Claim("options", related=True)
S_DT = Claim("sample", type="datetime", wire="string", detail="every value is an ISO 8601 datetime")
S_DAY = Claim(
    "sample", type="string", day_key=True, max=10, detail="every value is a YYYY-MM-DD day"
)
S_ENUM = Claim("sample", type="enum", values=("a", "b"), closed=False, detail="few values")
S_STR = Claim("sample", type="string", wire="string")
S_NUMTEXT = Claim("sample", type="string", wire="numeric", detail="numeric text")
S_BOOL = Claim("sample", type="boolean")


@pytest.mark.parametrize(
    ("name", "given", "expect"),
    [
        (
            "agreement",
            dict(spec=SPEC_STR, options=OPT_STR, sample=S_STR),
            {
                "type": "string",
                "confidence": "high",
                "evidence": [Ev("openapi"), Ev("options"), Ev("sample")],
            },
        ),
        ("spec alone", dict(spec=SPEC_STR), {"type": "string", "confidence": "medium"}),
        ("samples alone", dict(sample=S_BOOL), {"type": "boolean", "confidence": "low"}),
        (
            "datetime refinement",
            dict(spec=SPEC_STR, sample=S_DT),
            {
                "type": "datetime",
                "notes": ["openapi declares a plain string; every value is an ISO 8601 datetime"],
            },
        ),
        (
            "day refinement",
            dict(spec=SPEC_STR, sample=S_DAY),
            {"type": "string", "day_key": True, "max": 10},
        ),
        (
            "enum candidates",
            dict(spec=SPEC_STR, sample=S_ENUM),
            {"type": "enum", "values": ("a", "b"), "values_closed": False, "confidence": "low"},
        ),
        (
            "decimal text",
            dict(spec=SPEC_NUM, sample=S_NUMTEXT),
            {"type": "number", "confidence": "high"},
        ),
        (
            "spec vs sample",
            dict(spec=SPEC_NUM, sample=S_BOOL),
            {
                "type": "number",
                "confidence": "low",
                "notes": [
                    "disagree: openapi says number, sample says boolean; "
                    "openapi won (the published contract)"
                ],
            },
        ),
        (
            "spec vs options enum",
            dict(spec=SPEC_ENUM, options=Claim("options", type="enum", values=("a",))),
            {"type": "enum", "values": ("a", "b"), "confidence": "low"},
        ),
        (
            "sample outside enum",
            dict(spec=SPEC_ENUM, sample=Claim("sample", type="enum", values=("a", "z"))),
            {"type": "enum", "confidence": "low"},
        ),
        (
            "options only",
            dict(options=OPT_STR),
            {"type": "string", "required": True, "confidence": "medium"},
        ),
    ],
)
def test_merge(name: str, given: dict[str, Any], expect: dict[str, Any]) -> None:
    draft = merge(
        FieldInput("f", "f", sampled="sample" in given, present="sample" in given, **given)
    )
    assert draft is not None
    for key, value in expect.items():
        assert getattr(draft, key) == value, (name, key)


def test_a_confirmed_ref_wins_over_enum_candidates() -> None:
    ref = RefDecision("ref", "lists", (Ev("name", "n"), Ev("lookup", "l")), "high")
    draft = merge(
        FieldInput(
            "list",
            "list",
            spec=SPEC_STR,
            options=OPT_REL,
            sample=S_ENUM,
            sampled=True,
            present=True,
            ref=ref,
        )
    )
    assert draft is not None
    assert (draft.type, draft.entity, draft.values, draft.confidence) == (
        "ref",
        "lists",
        (),
        "high",
    )
    assert draft.notes == []


def test_declared_but_never_answered_is_write_only() -> None:
    draft = merge(FieldInput("password", "password", options=OPT_STR, sampled=True, present=False))
    assert draft is not None and draft.write_only
    assert Ev("sample", "never present in the samples") in draft.evidence


def test_server_managed_names_are_read_only_with_name_evidence() -> None:
    draft = merge(FieldInput("created_at", "created_at", sample=S_DT, sampled=True, present=True))
    assert draft is not None and draft.read_only and draft.type == "datetime"
    assert draft.evidence[-1].source == "name"


def test_nothing_typed_means_no_field() -> None:
    assert merge(FieldInput("x", "x", options=OPT_REL, sampled=True, present=True)) is None


@pytest.mark.parametrize(
    ("why", "spec", "sample", "nullable"),
    [
        ("the spec refuses null", Claim("openapi", type="number", nullable=False), None, False),
        ("the spec allows null", Claim("openapi", type="number", nullable=True), None, None),
        ("a sample stored null", Claim("openapi", type="number", nullable=False),
         Claim("sample", type="number", nullable=True), None),
        ("a required field says nothing more", Claim("openapi", type="number", nullable=False,
                                                     required=True), None, None),
        ("read-only fields are never written", Claim("openapi", type="number", nullable=False,
                                                      read_only=True), None, None),
        ("OPTIONS cannot tell", None, None, None),
    ],
)  # fmt: skip
def test_nullable_false_only_where_the_spec_says_so_and_nothing_contradicts_it(
    why: str, spec: Claim | None, sample: Claim | None, nullable: bool | None
) -> None:
    options = Claim("options", type="number")
    draft = merge(
        FieldInput("n", "n", spec=spec, options=options, sample=sample, sampled=True, present=True)
    )
    assert draft is not None and draft.nullable is nullable, why


def test_a_nested_ref_is_read_from_its_id() -> None:
    ref = RefDecision("ref", "severities", (Ev("name", "n"), Ev("lookup", "l")), "high",
                      nested="id")  # fmt: skip
    sample = Claim("sample", type="json", wire="object")
    draft = merge(FieldInput("severity", "severity", sample=sample, sampled=True, present=True,
                             ref=ref))  # fmt: skip
    assert draft is not None
    assert (draft.type, draft.entity, draft.source) == ("ref", "severities", "severity.id")
    assert draft.write_source is None  # a write name needs its own evidence


def test_a_list_of_nested_objects_keeps_its_source_and_is_marked_nested() -> None:
    ref = RefDecision("list<ref>", "labels", (Ev("name", "n"), Ev("lookup", "l")), "high",
                      nested="id")  # fmt: skip
    sample = Claim("sample", type="json", wire="array:object")
    draft = merge(FieldInput("labels", "labels", sample=sample, sampled=True, present=True,
                             ref=ref))  # fmt: skip
    assert draft is not None
    assert (draft.type, draft.source, draft.nested) == ("list<ref>", "labels", True)
    assert draft.nested_base() == "labels" and draft.write_keys("labels") == (
        "label_ids", "labelIds",
    )  # fmt: skip


def test_create_only_from_the_spec_is_kept_with_its_evidence() -> None:
    spec = Claim("openapi", type="string", wire="string", create_only=True)
    draft = merge(FieldInput("name", "name", spec=spec, sampled=True, present=True))
    assert draft is not None and draft.create_only and not draft.read_only
    assert Ev("openapi", NOT_UPDATED) in draft.evidence


def test_a_read_only_field_is_never_create_only() -> None:
    spec = Claim("openapi", type="string", wire="string", read_only=True, create_only=True)
    draft = merge(FieldInput("slug", "slug", spec=spec, sampled=True, present=True))
    assert draft is not None and draft.read_only and not draft.create_only
