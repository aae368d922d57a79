"""Every checked-in mapping is verified in CI against its own real sample."""

from __future__ import annotations

import re
from pathlib import Path

from tests.mapper.verify.support import MAPPINGS as DJANGO_MAPPINGS

ROOT = Path(__file__).resolve().parents[1]
STACK_TESTS = sorted((ROOT / "tests" / "stacks").glob("test_*.py"))


def _stack_mappings() -> set[str]:
    names = set()
    for test in STACK_TESTS:
        text = test.read_text()
        found = re.search(r'^NAME = "([^"]+)"', text, re.MULTILINE)
        # a stack test counts only if it really runs the verifier on its mapping
        if found and "verify" in text:
            names.add(found.group(1))
    return names


def test_each_mapping_has_a_verifying_test() -> None:
    checked_in = {p.name for p in (ROOT / "mappings").glob("*.yaml")}
    verified = {p.name for p in DJANGO_MAPPINGS} | _stack_mappings()
    assert checked_in - verified == set()
    assert {"kanban-drf.yaml", "conformance-kanban.yaml"} <= verified
