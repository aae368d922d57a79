"""The steps around a metadata API (`decide._metadata_draft`)."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe._draft import Claim
from mapper.probe.decide._metadata_draft import codec_notes

BOOLEAN = {"done": Claim("metadata", type="boolean", wire="boolean")}
NEEDS = (
    "entities.cards.fields.done: the metadata says boolean, the wire says 0/1 "
    "(a 0/1 <-> boolean value codec is needed to map it as a boolean)"
)


@pytest.mark.parametrize(
    ("records", "notes"),
    [
        ([{"done": 0}, {"done": 1}, {"done": None}], [NEEDS]),
        ([{"done": False}, {"done": True}], []),  # cast by the upstream: no codec
        ([{"done": 0}, {"done": 2}], []),  # not a flag
        ([{"done": None}, {}], []),  # nothing to tell
    ],
)
def test_a_boolean_answered_as_0_or_1_is_noted(
    records: list[dict[str, Any]], notes: list[str]
) -> None:
    assert codec_notes("cards", BOOLEAN, records) == notes
