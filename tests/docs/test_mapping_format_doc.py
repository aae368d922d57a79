"""docs/mapping-format.md names every key the mapping schema has, every normalization
and every problem code."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from runtime.mapping import PROBLEM_CODES

from .markdown import DOCS, ROOT, fenced_blocks, prose

DOC = DOCS / "mapping-format.md"
SCHEMA = json.loads((ROOT / "runtime" / "mapping" / "mapping.schema.json").read_text())


def _keys(where: str, node: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key in node.get("properties", {}):
        yield where, key


def schema_keys() -> list[tuple[str, str]]:
    keys = list(_keys("top level", SCHEMA))
    for name, node in SCHEMA["$defs"].items():
        keys += _keys(name, node)
    return keys


def _named() -> set[str]:
    text = DOC.read_text()
    # `upstream.headers` names `headers` too
    named = {part for code in re.findall(r"`([\w.<>-]+)", prose(text)) for part in code.split(".")}
    for block in fenced_blocks(text):
        if block.lang == "yaml":
            named |= set(re.findall(r"([\w-]+):", block.text))
    return named


@pytest.mark.parametrize("where,key", schema_keys(), ids=lambda v: str(v))
def test_every_schema_key_is_documented(where: str, key: str) -> None:
    assert key in _named(), f"{where}.{key} is not in docs/mapping-format.md"


def test_every_normalization_and_approval_mode_is_documented() -> None:
    field = SCHEMA["$defs"]["field"]["properties"]
    modes = SCHEMA["$defs"]["serve"]["properties"]["approvals"]["enum"]
    named = _named()
    for value in [*field["normalize"]["items"]["enum"], *modes]:
        assert value in named, value


def test_the_published_schema_is_the_runtime_schema() -> None:
    published = json.loads((ROOT / "mappings" / "mapping.schema.json").read_text())
    assert published == SCHEMA


def test_every_problem_code_is_documented() -> None:
    named = _named()
    assert [code for code in PROBLEM_CODES if code not in named] == []
