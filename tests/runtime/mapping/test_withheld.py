"""What a partial stamp withholds from the served mapping, per scope of the refused claim."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from runtime.mapping import Refusal, load_mapping, withhold

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
