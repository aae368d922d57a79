"""What a partial stamp withholds from the served mapping, per scope of the refused claim."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from runtime.mapping import Refusal, Stamp, StampCheck, load_mapping, withhold
from tests.fixtures.runtime import with_crud_ops

ROOT = Path(__file__).resolve().parents[3]
ENV = {"KANBAN_URL": "http://127.0.0.1:8000", "KANBAN_TOKEN": "token-one-0123456789"}
MAPPING = load_mapping(ROOT / "mappings" / "kanban-drf.yaml", env=ENV)
EVERY_OPERATION = ["archive-board", "count-finished", "finish-card", "board-report"]


@dataclass(frozen=True)
class Case:
    refused: tuple[Refusal, ...]
    entities: list[str]  # served, in declaration order
    operations: list[str] = field(default_factory=lambda: EVERY_OPERATION)
    reads: dict[str, tuple[str, ...]] = field(default_factory=dict)
    writes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    withheld_ops: dict[str, tuple[str, ...]] = field(default_factory=dict)


ALL = ["boards", "lists", "cards", "tags"]
CASES = {
    "a write claim": Case(
        (Refusal("entities.cards.write.create", "create_roundtrip", "writes", "cards"),
         Refusal("entities.cards.write.update", "update_roundtrip", "writes", "cards")),
        ALL,
        writes={"cards": ("entities.cards.write.create", "entities.cards.write.update")},
    ),
    "a read claim, and whatever refers to it": Case(
        (Refusal("entities.lists.fields.position.type", "stored_values_typed", "reads", "lists",
                 "position"),),
        ["boards", "tags"],
        operations=["archive-board", "count-finished", "board-report"],
        reads={"lists": ("entities.lists.fields.position.type",),
               "cards": ("refers to lists, which is not served",)},
        withheld_ops={"finish-card": ("works on cards, which is not served",)},
    ),
    "writes of an entity whose reads are refused": Case(
        (Refusal("entities.tags.list", "list_walks", "reads", "tags"),
         Refusal("entities.tags.write.create", "create_roundtrip", "writes", "tags")),
        ["boards", "lists"],
        operations=["archive-board", "count-finished", "board-report"],
        reads={"tags": ("entities.tags.list",),
               "cards": ("refers to tags, which is not served",)},
        withheld_ops={"finish-card": ("works on cards, which is not served",)},
    ),
    "an operation": Case(
        (Refusal("operations.board-report", "operation_runs", "operation",
                 operation="board-report"),),
        ALL,
        withheld_ops={"board-report": ("operations.board-report",)},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_what_each_refusal_withholds(case: Case) -> None:
    served, withheld = withhold(MAPPING, case.refused)
    assert list(served.entities) == case.entities
    assert [op.name for op in served.operations] == case.operations
    assert dict(withheld.reads) == case.reads
    assert dict(withheld.writes) == case.writes
    assert dict(withheld.operations) == case.withheld_ops
    assert served.content_hash == MAPPING.content_hash  # still the verified text


def test_a_refused_pushdown_is_evaluated_here_and_the_rest_stays() -> None:
    refused = (
        Refusal("entities.cards.filter.title.~", "filter_narrows", "filter", "cards", "title", "~"),
        Refusal("entities.cards.sort.due", "sort_orders", "sort", "cards", "due"),
        Refusal("entities.tags.sort.id", "sort_orders", "sort", "tags", "id"),
        Refusal("entities.tags.sort.name", "sort_orders", "sort", "tags", "name"),
    )
    served, withheld = withhold(MAPPING, refused)
    cards = served.entities["cards"]
    assert set(cards.filters["title"]) == {"="} and set(cards.filters["due"]) >= {"<", "="}
    assert (
        cards.sort is not None and "due" not in cards.sort.fields and "title" in cards.sort.fields
    )
    assert served.entities["tags"].sort is None  # no field left to sort upstream
    assert set(withheld.pushdowns) == {"cards", "tags"} and not withheld.writes
    assert "evaluated here" in "\n".join(withheld.describe())


def test_nothing_refused_withholds_nothing() -> None:
    served, withheld = withhold(MAPPING, ())
    assert served == MAPPING and not withheld and withheld.describe() == []


def test_a_refusal_of_one_write_or_one_field_withholds_only_that() -> None:
    refused = (
        Refusal("entities.cards.write.delete", "delete_removes", "writes", "cards", op="delete"),
        Refusal("entities.cards.write.create", "create_roundtrip", "writes", "cards", "due",
                "create"),
        Refusal("entities.lists.write.update", "update_roundtrip", "writes", "lists", op="update"),
        Refusal("entities.lists.write.create", "create_roundtrip", "writes", "lists"),
    )  # fmt: skip
    served, withheld = withhold(MAPPING, refused)
    assert list(served.entities) == ALL and dict(withheld.writes) == {
        "lists": ("entities.lists.write.create",)
    }
    assert withheld.write_refusals("cards", "delete") == ("entities.cards.write.delete",)
    assert withheld.write_refusals("cards", "create", ["title"]) == ()
    assert withheld.write_refusals("cards", "create", ["title", "due"]) == (
        "entities.cards.write.create (due)",
    )
    assert withheld.write_refusals("cards", "update", ["due"]) == ()
    # A whole refusal of an entity's writes covers its narrower ones too.
    assert withheld.write_refusals("lists", "create") == ("entities.lists.write.create",)
    assert "lists" not in withheld.narrowed
    lines = withheld.describe()
    assert "entity cards: deletes refused (entities.cards.write.delete)" in lines
    assert "entity cards: create of due refused (entities.cards.write.create)" in lines


@pytest.mark.parametrize(
    ("refused", "withheld_ops"),
    [
        (Refusal("entities.cards.write.update", "update_roundtrip", "writes", "cards",
                 op="update"),
         {"close-card": ("runs through the update of cards, which is withheld",)}),
        (Refusal("entities.cards.write.create", "create_roundtrip", "writes", "cards"),
         {"close-card": ("runs through the update of cards, which is withheld",),
          "new-todo": ("runs through the create of cards, which is withheld",)}),
        (Refusal("entities.cards.write.create", "create_roundtrip", "writes", "cards", "due",
                 "create"), {}),
    ],
    ids=["update-withheld", "all-writes-withheld", "one-field-only"],
)  # fmt: skip
def test_an_operation_through_a_withheld_write_is_withheld_with_it(
    tmp_path: Path, refused: Refusal, withheld_ops: dict[str, tuple[str, ...]]
) -> None:
    mapping = load_mapping(with_crud_ops(tmp_path), env=ENV)
    _, withheld = withhold(mapping, (refused,))
    assert {n: c for n, c in withheld.operations.items() if n in ("close-card", "new-todo")} == (
        withheld_ops
    )


def test_an_unproven_claim_is_withheld_unless_serving_allows_unverified() -> None:
    unproven = Refusal(
        "entities.cards.write.delete", "delete_removes", "writes", "cards", op="delete",
        reason="no create: the verifier deletes only records it created", unproven=True,
    )  # fmt: skip
    disproven = Refusal("entities.tags.write.create", "create_roundtrip", "writes", "tags")
    stamp = Stamp(
        content_hash=MAPPING.content_hash, app="kanban-drf", upstream="http://x",
        verified_at="2026-12-03T00:00:00Z", verifier_version="0", refused=(unproven, disproven),
    )  # fmt: skip
    _, strict = stamp.withhold(MAPPING)
    assert strict.write_refusals("cards", "delete") == ("entities.cards.write.delete",)
    _, allowing = stamp.withhold(MAPPING, unproven=False)
    assert allowing.write_refusals("cards", "delete") == ()
    # what was disproven is never served
    assert allowing.write_refusals("tags", "create") == ("entities.tags.write.create",)
    again = Stamp.from_json(json.loads(json.dumps(stamp.to_json())))
    assert again.refused == stamp.refused and again.refused[0].unproven


def test_a_stamp_written_before_not_proven_was_named_still_loads() -> None:
    doc = Stamp(
        content_hash=MAPPING.content_hash, app="kanban-drf", upstream="http://x",
        verified_at="2026-12-03T00:00:00Z", verifier_version="0",
        checks=(StampCheck("operations.archive-board", "operation_runs", "unproven", "x"),),
    ).to_json()  # fmt: skip
    doc["checks"][0]["outcome"] = "skipped"
    assert Stamp.from_json(doc).not_proven[0].claim == "operations.archive-board"
