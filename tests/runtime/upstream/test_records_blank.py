"""Foreign blanks and stored dates as protocol values (PocketBase writes ``""`` for unset)."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import pytest

from runtime.mapping import Entity, Field
from runtime.upstream import to_protocol


def _field(name: str, type: str, **extra: Any) -> Field:
    return Field(name=name, type=type, source=(name,), **extra)


FIELDS = (
    _field("title", "string"),
    _field("day", "string", day_key=True),
    _field("due", "datetime"),
    _field("points", "number"),
    _field("done", "boolean"),
    _field("status", "enum", values=("open", "closed")),
    _field("grade", "enum", values=("", "a", "b")),
    _field("list", "ref", entity="lists"),
    _field("tags", "list<ref>", entity="tags"),
    _field("meta", "json"),
)
CARDS = Entity(
    name="cards", module="board", path="/cards", detail_path="/cards/{id}",
    id_source=("id",), id_type="string", fields=MappingProxyType({f.name: f for f in FIELDS}),
    label="title",
)  # fmt: skip


@dataclass(frozen=True)
class Case:
    field: str
    stored: Any
    read: Any


CASES = [
    Case("title", "", ""),  # text keeps its empty value
    Case("meta", "", ""),  # so does JSON: "" is a JSON string
    Case("due", "", None),
    Case("due", "2026-12-01 00:00:00.000Z", "2026-12-01 00:00:00.000Z"),
    Case("points", "", None),
    Case("points", 0, 0),
    Case("done", "", None),
    Case("done", False, False),
    Case("status", "", None),
    Case("status", "open", "open"),
    Case("grade", "", ""),  # a closed enum that offers "" keeps it
    Case("list", "", None),
    Case("list", "l1", "l1"),
    Case("tags", [], []),
    Case("tags", ["t1", ""], ["t1"]),
    Case("day", "", None),
    Case("day", "2026-12-01", "2026-12-01"),
    Case("day", "2026-12-01 00:00:00.000Z", "2026-12-01"),  # a date field at midnight UTC
    Case("day", "2026-12-01T00:00:00+00:00", "2026-12-01"),
    Case("day", "2026-12-01 09:30:00.000Z", "2026-12-01 09:30:00.000Z"),  # not a day: as is
    Case("day", "2026-12-01T00:00:00+02:00", "2026-12-01T00:00:00+02:00"),  # another day in UTC
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.field}={c.stored!r}" for c in CASES])
def test_stored_values_read_as_protocol_values(case: Case) -> None:
    record = to_protocol(CARDS, {"id": "c1", case.field: case.stored})
    assert record[case.field] == case.read
    assert record["id"] == "c1"
