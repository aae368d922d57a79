"""The writer: flow when it fits, plain only when YAML reads back the same string."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from runtime.mapping._yaml import dump, scalar

TRICKY = [
    "=",
    "~",
    "yes",
    "no",
    "on",
    "null",
    "1.0",
    "2026-01-01",
    "Token ${X}",
    "a: b",
    "#x",
    "- x",
    "x,y",
    "[x]",
    "",
    " lead",
    "café",
    'say "hi"',
    "true",
    "1e3",
    "0x10",
    "a  b",
]


@pytest.mark.parametrize("text", TRICKY)
def test_strings_read_back_as_themselves(text: str) -> None:
    assert yaml.safe_load(f"k: {scalar(text)}") == {"k": text}
    assert yaml.safe_load(dump({"k": [text, {text: text}]})) == {"k": [text, {text: text}]}


@pytest.mark.parametrize("value", [None, True, False, 0, 1.5, "plain text", "/api/cards/"])
def test_scalars(value: Any) -> None:
    assert yaml.safe_load(f"k: {scalar(value)}") == {"k": value}


def test_short_maps_are_flow_and_long_ones_block() -> None:
    text = dump({"short": {"a": 1, "b": [1, 2]}, "long": {f"key{i}": "x" * 10 for i in range(8)}})
    lines = text.splitlines()
    assert lines[0] == "short: {a: 1, b: [1, 2]}"
    assert lines[1] == "long:" and lines[2] == "  key0: xxxxxxxxxx"
    assert all(len(line) <= 100 for line in lines)


def test_the_same_document_gives_the_same_bytes() -> None:
    doc = {"z": 1, "a": {"y": [{"k": "v"}], "b": None}}
    assert dump(doc) == dump(yaml.safe_load(dump(doc)))
    assert list(yaml.safe_load(dump(doc))) == ["z", "a"]
