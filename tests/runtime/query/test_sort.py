"""Typed, stable sorting: multi-key, descending, nulls, refs, json, lists, @random."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from runtime.protocol import ProtocolError
from runtime.query import Random, compile_sort, parse_sort

from ._dataset import CARD_RECORDS, ids, resolver


@dataclass(frozen=True)
class Case:
    sort: str
    expected: list[str]
    why: str = ""


CASES = [
    Case("title", ["c3", "c1", "c4", "c5", "c2", "c6"], "blank text first, code point order"),
    Case("points", ["c3", "c5", "c4", "c1", "c2", "c6"], "null first ascending"),
    Case("-points", ["c6", "c2", "c1", "c4", "c5", "c3"], "null last descending"),
    Case("+points", ["c3", "c5", "c4", "c1", "c2", "c6"]),
    Case("priority,-points", ["c3", "c1", "c5", "c2", "c6", "c4"], "second key breaks ties"),
    Case("-done,title", ["c5", "c2", "c3", "c1", "c4", "c6"]),
    Case("created", ["c3", "c4", "c6", "c2", "c1", "c5"], "instants, not text"),
    Case("due", ["c3", "c4", "c6", "c1", "c5", "c2"]),
    Case("owner.name", ["c3", "c4", "c6", "c1", "c5", "c2"], "missing owners are null"),
    Case("meta.size", ["c3", "c6", "c5", "c1", "c4", "c2"], "json: null, numbers, text"),
    Case("-tags:length", ["c1", "c4", "c6", "c2", "c5", "c3"], "stable among equals"),
    Case("tags.name,id", ["c3", "c1", "c2", "c4", "c5", "c6"], "a list sorts by its first"),
    Case("done", ["c1", "c3", "c4", "c6", "c2", "c5"], "false before true, stable"),
    Case("", ["c1", "c2", "c3", "c4", "c5", "c6"], "no sort keeps the upstream order"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.sort or "none" for c in CASES])
def test_sort_orders_records(case: Case) -> None:
    sort = compile_sort(parse_sort(case.sort), resolver())
    assert ids(sort(CARD_RECORDS)) == case.expected, case.why


def test_random_sort_is_a_reproducible_shuffle_with_a_seeded_rng() -> None:
    first = compile_sort(parse_sort("@random"), resolver(), rng=random.Random(42))
    again = compile_sort(parse_sort("-@random"), resolver(), rng=random.Random(42))
    order = ids(first(CARD_RECORDS))
    assert order == ids(again(CARD_RECORDS))
    assert sorted(order) == ids(CARD_RECORDS)
    shuffles = {
        tuple(ids(compile_sort((Random(),), resolver(), rng=random.Random(seed))(CARD_RECORDS)))
        for seed in range(10)
    }
    assert len(shuffles) > 1


def test_random_breaks_ties_of_an_earlier_key() -> None:
    sort = compile_sort(parse_sort("done,@random"), resolver(), rng=random.Random(1))
    order = ids(sort(CARD_RECORDS))
    assert set(order[:4]) == {"c1", "c3", "c4", "c6"} and set(order[4:]) == {"c2", "c5"}


@pytest.mark.parametrize(
    ("sort", "message"),
    [
        ("nope", "unknown field 'nope' on cards"),
        ("-scan", "'scan' is a binary field"),
        ("owner.nope", "unknown field 'nope' on users"),
    ],
)
def test_sort_on_undeclared_or_unsortable_fields_is_refused(sort: str, message: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        compile_sort(parse_sort(sort), resolver(), text=sort)
    assert caught.value.code == "invalid_filter"
    assert message in caught.value.message
    assert caught.value.extra == {"got": sort}
