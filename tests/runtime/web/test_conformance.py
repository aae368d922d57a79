"""Class-A conformance over real HTTP: the runtime in front of the real Django sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.runner import load_suite, run
from tests.fixtures.databases import DATABASES, database
from tests.fixtures.runtime import (
    CONFORMANCE,
    CONFORMANCE_GRANTS,
    CONFORMANCE_TOKENS,
    start_runtime,
)
from tests.fixtures.servers import start_kanban


@pytest.mark.parametrize("db", DATABASES)
def test_class_a_37_of_37(db: str, tmp_path: Path) -> None:
    with (
        database(db, tmp_path) as store_url,
        start_kanban() as upstream,
        start_runtime(CONFORMANCE, upstream, store_url=store_url, grants=CONFORMANCE_GRANTS) as rt,
    ):
        results = run(load_suite(), rt.url, CONFORMANCE_TOKENS)
    failures = [
        f"#{r.check.n} {r.check.name}: {'; '.join(r.failures)}" for r in results if not r.ok
    ]
    assert len(results) == 37
    assert failures == []
