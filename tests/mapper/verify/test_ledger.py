"""Which records the side-effect sweep takes for the upstream's answers to the run's writes."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.verify._ledger import _names

IDS = {"7b9b2e1c-58a1-4f6e-9a55-2c1f0e9d3a10"}


@pytest.mark.parametrize(
    ("record", "taken"),
    [
        ({"id": "x1", "name": "deployment:7b9b2e1c-58a1-4f6e-9a55-2c1f0e9d3a10"}, True),
        ({"id": "x2", "owner": "7b9b2e1c-58a1-4f6e-9a55-2c1f0e9d3a10"}, True),
        # only text values at the top level; nested objects are the record's own data
        ({"id": "x3", "meta": {"of": "7b9b2e1c-58a1-4f6e-9a55-2c1f0e9d3a10"}}, False),
        ({"id": "x4", "name": "deployment:someone-else"}, False),
        ({"id": "x5", "count": 7}, False),
    ],
)
def test_a_record_naming_an_id_of_the_run_is_a_side_effect(
    record: dict[str, Any], taken: bool
) -> None:
    assert _names(record, IDS) is taken
