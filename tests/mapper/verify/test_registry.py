"""Checks are plain registered functions; the plan expands them into one claim each."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from mapper.verify import CHECKS, CheckResult, VerifyOptions, plan
from mapper.verify._registry import PHASES, Registry
from runtime.mapping import load_mapping

ROOT = Path(__file__).resolve().parents[3]
KANBAN = load_mapping(ROOT / "mappings" / "kanban-drf.yaml", resolve_env=False)


def test_every_check_is_documented_and_in_a_known_phase() -> None:
    assert len(CHECKS) >= 15
    for spec in CHECKS:
        assert spec.phase in PHASES and spec.doc and spec.doc[0].isupper(), spec.name


def test_a_name_registers_once() -> None:
    registry = Registry()

    async def twice(ctx: object, subject: object) -> None:
        """A check."""

    registry.register(phase="read", subjects=lambda m: ())(twice)
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(phase="read", subjects=lambda m: ())(twice)


# How many claims of kanban-drf each check covers.
EXPECTED = [
    ("credentials_work", 1),
    ("list_walks", 4),
    ("get_by_id", 4),
    ("stored_values_typed", 14),  # every field but none write-only or binary
    ("refs_resolve", 3),  # lists.board, cards.list, cards.tags
    ("create_roundtrip", 4),
    ("create_minimal", 4),
    ("required_enforced", 4),
    ("update_roundtrip", 4),
    ("read_only_ignored", 2),  # boards.created, cards.created
    ("enum_values_accepted", 1),
    ("enum_closed", 1),
    ("normalization_applied", 0),  # none declared (see test_normalize.py)
    ("codec_roundtrip", 0),  # none declared (see test_codecs.py)
    ("form_body_stored", 0),  # JSON bodies
    ("filter_narrows", 31),
    ("sort_orders", 15),
    ("lists_created_records", 4),
    ("operation_runs", 4),
    ("delete_removes", 4),
    ("delete_effect", 3),
    ("posted_listing_agrees", 0),  # no listing by POST here (see test_posted.py)
]


@pytest.mark.parametrize(("check", "claims"), EXPECTED, ids=[c for c, _ in EXPECTED])
def test_plan_covers_every_claim_of_the_mapping(check: str, claims: int) -> None:
    counts = Counter(spec.name for _, spec, _ in plan(KANBAN, VerifyOptions()))
    assert counts[check] == claims


def test_claims_are_unique_and_ordered_by_phase() -> None:
    items = plan(KANBAN, VerifyOptions())
    claims = [(spec.name, subject.claim) for _, spec, subject in items]
    assert len(set(claims)) == len(claims)
    # Every check has claims here, but the ones for declarations this mapping has none of.
    unused = {
        "normalization_applied",
        "write_name_lands",
        "client_id_kept",
        "created_found_by_value",
        "write_answer_read",
        "posted_listing_agrees",
        "codec_roundtrip",
        "form_body_stored",
        "create_only_refused",
        "update_only_refused",
        "feed_modified_moves",  # no serve.feed (see test_feed.py)
        "feed_etag_follows",
    }
    assert {name for name, _ in claims} == {spec.name for spec in CHECKS} - unused


@pytest.mark.parametrize(
    ("only", "entities"),
    [(("tags",), {"tags", None}), (("cards", "lists"), {"cards", "lists", None})],
)
def test_only_keeps_the_named_entities(only: tuple[str, ...], entities: set[str | None]) -> None:
    items = plan(KANBAN, VerifyOptions(only=only))
    assert {subject.entity for _, _, subject in items} <= entities
    assert any(subject.claim == "upstream.auth" for _, _, subject in items)


def test_a_write_the_mapping_does_not_declare_makes_no_claim() -> None:
    """An entity with neither create nor delete: its claims about either are not planned,
    not reported as skipped; its update claims stay (and are not proven, withheld)."""
    cards = KANBAN.entities["cards"]
    write = dataclasses.replace(cards.write, create=False, delete=False)
    narrowed = dataclasses.replace(
        KANBAN, entities={**KANBAN.entities, "cards": dataclasses.replace(cards, write=write)}
    )
    claims = {subject.claim for _, _, subject in plan(narrowed, VerifyOptions())}
    absent = {
        "entities.cards.write.create", "entities.cards.write.create.minimal",
        "entities.cards.fields.title.required", "entities.cards.list.created",
        "entities.cards.write.delete",
    }  # fmt: skip
    assert absent.isdisjoint(claims) and "entities.cards.write.update" in claims
    assert "entities.cards.fields.created.readOnly" in claims  # proven on update


@pytest.mark.parametrize(
    ("field", "op", "narrow", "refused"),
    [
        ("status", None, None, [("status", "create"), ("status", "update")]),
        (None, "update", None, [(None, "update")]),
        (None, None, ("delete", ()), [(None, "delete")]),
        (None, None, None, [(None, None)]),
    ],
    ids=["a-field", "one-write", "narrowed", "every-write"],
)
def test_an_unproven_write_claim_withholds_the_narrowest_write(
    field: str | None, op: str | None, narrow: tuple[str, tuple[str, ...]] | None,
    refused: list[tuple[str | None, str | None]],
) -> None:  # fmt: skip
    result = CheckResult(
        "enum_closed", "entities.cards.x", "x", "write", "cards", "unproven",
        withholds="writes", field=field, op=op, narrow=narrow, withheld=True,
    )  # fmt: skip
    got = result.refusals()
    assert [(r.field, r.op) for r in got] == refused and all(r.unproven for r in got)
    chosen = dataclasses.replace(result, withheld=False, excluded=True)
    assert chosen.refusals() == [] and not chosen.unproven
