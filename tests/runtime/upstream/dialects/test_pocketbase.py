"""The `pocketbase` dialect: filter literals and the native ``sort`` in upstream names."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.mapping import SortSpec
from runtime.upstream import DIALECTS, PocketBaseDialect, dialect_for

from ..support import CARDS

POCKETBASE = dialect_for("pocketbase")


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("milk", '"milk"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("C:\\tmp", '"C:\\\\tmp"'),
        ("", '""'),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (-2.5, "-2.5"),
        (1e21, None),  # no exponent in the grammar
        (float("nan"), None),
        (float("inf"), None),
        (["a"], None),
    ],
)
def test_values_are_filter_literals(value: Any, literal: str | None) -> None:
    assert POCKETBASE.encode_value(CARDS.fields["title"], value) == literal


def test_sort_uses_upstream_names() -> None:
    spec = CARDS.sort
    assert spec is not None
    keys = [("created", True), ("title", False)]
    assert POCKETBASE.sort_param(spec, keys, entity=CARDS) == ("ordering", "-created_at,title")
    pb = SortSpec(param="sort", fields=("title", "id"))
    assert POCKETBASE.sort_param(pb, [("title", True), ("id", False)]) == ("sort", "-title,id")


def test_sort_by_unlisted_field_is_refused() -> None:
    assert CARDS.sort is not None
    with pytest.raises(ValueError, match="due"):
        POCKETBASE.sort_param(CARDS.sort, [("due", False)], entity=CARDS)


def test_it_is_registered_with_its_native_filter_parameter() -> None:
    assert DIALECTS["pocketbase"] is POCKETBASE
    assert isinstance(POCKETBASE, PocketBaseDialect)
    assert (POCKETBASE.name, POCKETBASE.filter_param) == ("pocketbase", "filter")
    assert POCKETBASE.null_param("due", True) is None
