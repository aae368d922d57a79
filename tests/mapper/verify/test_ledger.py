"""Which records the sweeps take: side effects of the run's writes, and other runs' records
only once those runs are over."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mapper.verify._ledger import RUN_MARK, _names, _young, new_run_id, run_age

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


def test_a_run_id_says_when_its_run_started() -> None:
    run_id = new_run_id(now=1_796_000_000)
    assert RUN_MARK.match(f"a2v-{run_id} cards 3") is not None
    assert run_age(run_id, now=1_796_000_090) == 90


@pytest.mark.parametrize(
    ("age", "lease", "young"),
    [
        (30, 3600, True),  # may still be going: left alone
        (7200, 3600, False),  # long over: swept
        (30, 0, False),  # no lease: every other run's record is swept
    ],
)
def test_only_records_of_runs_older_than_the_lease_are_swept(
    age: float, lease: float, young: bool
) -> None:
    run_id = new_run_id(now=time.time() - age)
    assert _young(f"a2v-{run_id} cards 3", lease) is young


def test_an_id_made_before_ids_carried_a_time_is_swept_as_long_over() -> None:
    assert run_age("ffffffff12") is None
    assert _young("a2v-ffffffff12 cards 3", 3600) is False
