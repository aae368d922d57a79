"""What the upstream answers for a record that does not exist (`decide._missing`)."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.decide import Source
from mapper.probe.decide._missing import unused_id
from mapper.probe.decide._observe import Observation
from mapper.probe.live import Exchange


def _source(records: list[dict[str, Any]]) -> Source:
    answer = Exchange("GET", "/items/cards", 200, "json", {"data": records})
    obs = Observation("cards", "/items/cards", answer, records=list(records), id_source="id")
    return Source("cards", "/items/cards", obs=obs)


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([{"id": 1}, {"id": 61}], "1000064"),  # past the largest integer id
        ([{"id": "a"}, {"id": "b"}], "a2map-no-such-record"),
        ([{"id": "a2map-no-such-record"}], "a2map-no-such-record-0"),
        ([{"id": 1}, {"id": "x"}], "a2map-no-such-record"),  # mixed: a string is safe
    ],
)
def test_an_id_no_sampled_record_has(records: list[dict[str, Any]], expected: str) -> None:
    assert unused_id(_source(records)) == expected
