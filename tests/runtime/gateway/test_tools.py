"""The fixed tool set: its size, and every argument problem reported at once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from runtime.gateway import TOOLS
from runtime.gateway._tools import check
from runtime.protocol import ProtocolError


def test_the_list_is_small_and_hand_written() -> None:
    wire = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in TOOLS]
    text = json.dumps(wire, separators=(",", ":"))
    assert len(text) <= 950
    # nothing generated: no titles, no anyOf, no $defs
    for word in ('"title"', '"anyOf"', '"$defs"'):
        assert word not in text
    assert [t.name for t in TOOLS] == ["describe", "records", "operation", "tasks"]


@pytest.mark.parametrize(
    ("tool", "args", "violations"),
    [
        ("describe", {"path": 3}, []),  # a whole number is read as text
        ("describe", {"path": True}, [("invalid_string", "path")]),
        ("records", {}, [("missing_required", "entity"), ("missing_required", "action")]),
        (
            "records",
            {"entity": "cards", "action": "fetch", "data": [1], "extra": 1},
            [("invalid_enum", "action"), ("usage", "data"), ("unknown_field", "extra")],
        ),
        ("operation", {"name": "x", "args": "a=1"}, [("usage", "args")]),
        ("tasks", {"action": "complete", "id": 7}, []),
    ],
)
def test_arguments(tool: str, args: dict[str, Any], violations: list[tuple[str, str]]) -> None:
    if not violations:
        call = check(tool, args)
        assert all(not isinstance(v, int) or isinstance(v, bool) for v in call.args.values())
        return
    with pytest.raises(ProtocolError) as caught:
        check(tool, args)
    body = caught.value.body()
    assert body["code"] == "usage"
    assert [(v["code"], v["field"]) for v in body["violations"]] == violations


def test_an_unknown_tool_names_the_tools() -> None:
    with pytest.raises(ProtocolError) as caught:
        check("search", {})
    assert "describe, records, operation, tasks" in caught.value.message
