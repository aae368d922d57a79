"""Local filter evaluation speed: records per second for a typical card filter.

    .venv/bin/python bench/local_filter.py [records]

Compares the compiled filter with a hand-written Python predicate doing the
same test (the baseline: the best plain Python can do) in the same run.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from runtime.mapping import Entity, Field
from runtime.query import EntityResolver, compile_filter, parse_filter

FILTER = 'priority = "high" && done = false && title ~ "milk"'
PRIORITIES = ("none", "low", "medium", "high", "urgent")
WORDS = ["buy", "milk", "bread", "call", "mum", "fix", "bike", "oat", "MILK", "review", "notes"]


def _cards_entity() -> Entity:
    fields = {
        "title": Field(name="title", type="string", source=("title",)),
        "priority": Field(
            name="priority",
            type="enum",
            source=("priority",),
            values=("none", "low", "medium", "high", "urgent"),
        ),
        "done": Field(name="done", type="boolean", source=("done",)),
    }
    return Entity(
        name="cards",
        module="board",
        path="/cards/",
        detail_path="/cards/{id}/",
        id_source=("id",),
        id_type="string",
        fields=MappingProxyType(fields),
        label="title",
    )


def _records(count: int, *, all_open_high: bool = False) -> list[dict[str, Any]]:
    rng = random.Random(7)
    return [
        {
            "id": f"c{i}",
            "title": " ".join(rng.choice(WORDS) for _ in range(4)),
            "priority": "high" if all_open_high else rng.choice(PRIORITIES),
            "done": False if all_open_high else rng.random() < 0.5,
        }
        for i in range(count)
    ]


def _baseline(record: dict[str, Any]) -> bool:
    return (
        record["priority"] == "high"
        and record["done"] is False
        and "milk" in record["title"].lower()
    )


def _rate(predicate: Callable[[Any], bool], records: list[dict[str, Any]]) -> tuple[float, int]:
    best, hits = float("inf"), 0
    for _ in range(5):
        start = time.perf_counter()
        hits = sum(1 for r in records if predicate(r))
        best = min(best, time.perf_counter() - start)
    return len(records) / best, hits


def main(argv: list[str] | None = None) -> int:
    """Judges no target: it prints the rates and their ratio (a count of a few hundred
    records is its smoke mode, `tests/bench/test_local_filter.py`)."""
    args = sys.argv[1:] if argv is None else argv
    count = int(args[0]) if args else 200_000
    start = time.perf_counter()
    predicate = compile_filter(parse_filter(FILTER), EntityResolver(_cards_entity()))
    compile_ms = (time.perf_counter() - start) * 1000
    print(f"filter:  {FILTER}  (parse + compile {compile_ms:.2f} ms)")
    for label, records in (
        ("mixed records", _records(count)),
        ("every comparison runs", _records(count, all_open_high=True)),
    ):
        rate, hits = _rate(predicate, records)
        base_rate, base_hits = _rate(_baseline, records)
        assert hits == base_hits, (hits, base_hits)
        print(
            f"{label:>22}: {rate:>12,.0f} records/s compiled, "
            f"{base_rate:>12,.0f} hand-written ({rate / base_rate:.2f}x); "
            f"{count:,} records, {hits:,} match"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
