"""`appliesWhen`: availability and the blocked-reason texts (protocol §22.2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from runtime.mapping import Entity, load_mapping, load_mapping_text
from runtime.protocol._predicates import evaluate, render

ROOT = Path(__file__).resolve().parents[3]

TASKS_YAML = """
format: 1
app: {id: tasks, name: Tasks}
upstream: {baseUrl: "http://127.0.0.1:9"}
modules:
  - {name: work}
entities:
  tasks:
    module: work
    path: /api/tasks/
    fields:
      title: {type: string, required: true}
      status: {type: enum, values: [open, draft, new, closed]}
      done: {type: boolean}
      points: {type: number}
      owner: {type: ref, entity: tasks}
      meta: {type: json}
      tags: {type: "list<ref>", entity: tasks}
operations: []
"""

TASKS: Entity = load_mapping_text(TASKS_YAML, resolve_env=False).entities["tasks"]


@dataclass(frozen=True)
class Case:
    name: str
    pred: Any
    record: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None  # None: the operation is available


def _ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


LEAVES = [
    # eq
    Case("eq holds", {"field": "status", "eq": "open"}, {"status": "open"}),
    Case(
        "eq fails on a string",
        {"field": "status", "eq": "open"},
        {"status": "closed"},
        'status is "closed", not "open"',
    ),
    Case(
        "eq on an absent field reads blank",
        {"field": "status", "eq": "open"},
        {},
        'status is blank, not "open"',
    ),
    Case(
        "eq on an empty string reads blank",
        {"field": "status", "eq": "open"},
        {"status": ""},
        'status is blank, not "open"',
    ),
    Case("eq null matches an empty string", {"field": "status", "eq": None}, {"status": ""}),
    Case("eq null matches null", {"field": "status", "eq": None}, {"status": None}),
    Case(
        "eq null fails on a value",
        {"field": "status", "eq": None},
        {"status": "open"},
        'status is "open", not blank',
    ),
    Case(
        "eq renders numbers the JavaScript way",
        {"field": "points", "eq": 3},
        {"points": 2.0},
        "points is 2, not 3",
    ),
    Case(
        "eq renders a fraction",
        {"field": "points", "eq": 3},
        {"points": 2.5},
        "points is 2.5, not 3",
    ),
    Case("eq int equals float", {"field": "points", "eq": 2}, {"points": 2.0}),
    Case(
        "eq renders booleans the JavaScript way",
        {"field": "done", "eq": True},
        {"done": False},
        "done is false, not true",
    ),
    Case(
        "eq quotes strings without escaping",
        {"field": "title", "eq": "x"},
        {"title": 'say "hi"'},
        'title is "say "hi"", not "x"',
    ),
    Case(
        "eq renders the expected value as declared",
        {"field": "done", "eq": "true"},
        {"done": False},
        'done is false, not "true"',
    ),
    Case("eq compares objects by JSON", {"field": "meta", "eq": {"a": 1}}, {"meta": {"a": 1}}),
    Case(
        "eq renders objects as JSON",
        {"field": "meta", "eq": {"a": 2}},
        {"meta": {"a": 1, "b": [True, None]}},
        'meta is {"a":1,"b":[true,null]}, not {"a":2}',
    ),
    Case(
        "object key order matters",
        {"field": "meta", "eq": {"b": 1, "a": 1}},
        {"meta": {"a": 1, "b": 1}},
        'meta is {"a":1,"b":1}, not {"b":1,"a":1}',
    ),
    Case(
        "eq compares arrays by JSON", {"field": "tags", "eq": ["t1", "t2"]}, {"tags": ["t1", "t2"]}
    ),
    Case(
        "eq renders arrays as JSON",
        {"field": "tags", "eq": ["t1"]},
        {"tags": ["t2", "t1"]},
        'tags is ["t2","t1"], not ["t1"]',
    ),
    Case(
        "a string is not a one-item array",
        {"field": "meta", "eq": ["a"]},
        {"meta": "a"},
        'meta is "a", not ["a"]',
    ),
    # ne
    Case("ne holds", {"field": "done", "ne": True}, {"done": False}),
    Case("ne holds on blank", {"field": "done", "ne": True}, {}),
    Case("ne fails", {"field": "done", "ne": True}, {"done": True}, "done is true"),
    Case(
        "ne fails on a string",
        {"field": "status", "ne": "open"},
        {"status": "open"},
        'status is "open"',
    ),
    Case("ne null fails on blank", {"field": "status", "ne": None}, {}, "status is blank"),
    # in
    Case("in holds", {"field": "status", "in": ["open", "draft"]}, {"status": "draft"}),
    Case(
        "in fails with three options",
        {"field": "status", "in": ["open", "draft", "new"]},
        {"status": "closed"},
        'status is "closed", not "open", "draft" or "new"',
    ),
    Case(
        "in fails with two options",
        {"field": "status", "in": ["open", "draft"]},
        {"status": "closed"},
        'status is "closed", not "open" or "draft"',
    ),
    Case(
        "in fails with one option",
        {"field": "status", "in": ["open"]},
        {},
        'status is blank, not "open"',
    ),
    Case(
        "in renders mixed values",
        {"field": "points", "in": [1, 2.5, None]},
        {"points": 7},
        "points is 7, not 1, 2.5 or blank",
    ),
    Case("in matches null against blank", {"field": "points", "in": [1, None]}, {"points": ""}),
    # notIn
    Case("notIn holds", {"field": "status", "notIn": ["closed"]}, {"status": "open"}),
    Case("notIn holds on blank", {"field": "status", "notIn": ["closed"]}, {}),
    Case(
        "notIn fails",
        {"field": "status", "notIn": ["closed", "draft"]},
        {"status": "draft"},
        'status is "draft"',
    ),
    # isBlank
    Case("isBlank true holds on absent", {"field": "owner", "isBlank": True}, {}),
    Case("isBlank true holds on null", {"field": "owner", "isBlank": True}, {"owner": None}),
    Case("isBlank true holds on empty string", {"field": "owner", "isBlank": True}, {"owner": ""}),
    Case(
        "isBlank true fails when set",
        {"field": "owner", "isBlank": True},
        {"owner": "t1"},
        'owner is set to "t1", not blank',
    ),
    Case(
        "whitespace is not blank",
        {"field": "owner", "isBlank": True},
        {"owner": " "},
        'owner is set to " ", not blank',
    ),
    Case(
        "zero is not blank",
        {"field": "points", "isBlank": True},
        {"points": 0},
        "points is set to 0, not blank",
    ),
    Case(
        "false is not blank",
        {"field": "done", "isBlank": True},
        {"done": False},
        "done is set to false, not blank",
    ),
    Case("isBlank false holds when set", {"field": "owner", "isBlank": False}, {"owner": "t1"}),
    Case(
        "isBlank false fails on absent", {"field": "owner", "isBlank": False}, {}, "owner is blank"
    ),
    Case(
        "isBlank false fails on empty string",
        {"field": "owner", "isBlank": False},
        {"owner": ""},
        "owner is blank",
    ),
]

COERCIONS = [
    Case(
        "boolean field reads 'true' as true",
        {"field": "done", "ne": True},
        {"done": "true"},
        "done is true",
    ),
    Case("boolean field reads 'false' as false", {"field": "done", "eq": False}, {"done": "false"}),
    Case("predicate side is read as declared too", {"field": "done", "eq": "true"}, {"done": True}),
    Case(
        "boolean field keeps other text",
        {"field": "done", "eq": True},
        {"done": "yes"},
        'done is "yes", not true',
    ),
    Case(
        "a boolean is not the number one",
        {"field": "done", "eq": True},
        {"done": 1},
        "done is 1, not true",
    ),
    Case(
        "a string field keeps 'true' as text",
        {"field": "title", "eq": True},
        {"title": "true"},
        'title is "true", not true',
    ),
    Case("number field reads a numeric string", {"field": "points", "eq": 3}, {"points": "3"}),
    Case("number field trims spaces", {"field": "points", "eq": 3}, {"points": " 3 "}),
    Case("number field reads exponents", {"field": "points", "eq": 1000}, {"points": "1e3"}),
    Case("number field reads fractions", {"field": "points", "eq": 0.5}, {"points": ".5"}),
    Case(
        "number field reads hex like JavaScript", {"field": "points", "eq": 16}, {"points": "0x10"}
    ),
    Case(
        "a numeric string renders as a number",
        {"field": "points", "eq": 3},
        {"points": "2.0"},
        "points is 2, not 3",
    ),
    Case(
        "number field keeps non-numeric text",
        {"field": "points", "eq": 3},
        {"points": "three"},
        'points is "three", not 3',
    ),
    Case(
        "underscores are not digits",
        {"field": "points", "eq": 1000},
        {"points": "1_000"},
        'points is "1_000", not 1000',
    ),
    Case(
        "non-ASCII digits are not digits",
        {"field": "points", "eq": 3},
        {"points": "\u0663"},
        'points is "\u0663", not 3',
    ),
    Case(
        "nan is not a number",
        {"field": "points", "ne": "nan"},
        {"points": "nan"},
        'points is "nan"',
    ),
    Case(
        "infinity is not a number",
        {"field": "points", "eq": 1},
        {"points": "Infinity"},
        'points is "Infinity", not 1',
    ),
    Case(
        "a true boolean is not the number one on a number field",
        {"field": "points", "eq": 1},
        {"points": True},
        "points is true, not 1",
    ),
    Case("in reads options as declared", {"field": "points", "in": ["1", "2"]}, {"points": 2}),
    Case("notIn reads options as declared", {"field": "done", "notIn": ["true"]}, {"done": False}),
    Case(
        "notIn fails after reading as declared",
        {"field": "done", "notIn": ["true"]},
        {"done": True},
        "done is true",
    ),
    Case(
        "an undeclared field compares as given",
        {"field": "extra", "eq": 1},
        {"extra": "1"},
        'extra is "1", not 1',
    ),
]

NEGATIONS = [
    Case(
        "not isBlank true on blank",
        {"not": {"field": "owner", "isBlank": True}},
        {},
        "owner is blank",
    ),
    Case(
        "not isBlank true when set", {"not": {"field": "owner", "isBlank": True}}, {"owner": "t1"}
    ),
    Case(
        "not isBlank false when set",
        {"not": {"field": "owner", "isBlank": False}},
        {"owner": "t1"},
        "owner is set",
    ),
    Case("not isBlank false on blank", {"not": {"field": "owner", "isBlank": False}}, {}),
    Case(
        "not eq names the actual value",
        {"not": {"field": "status", "eq": "open"}},
        {"status": "open"},
        'status is "open"',
    ),
    Case(
        "not eq reads the actual value as declared",
        {"not": {"field": "done", "eq": True}},
        {"done": "true"},
        "done is true",
    ),
    Case("not eq holds otherwise", {"not": {"field": "status", "eq": "open"}}, {"status": "new"}),
    Case(
        "not over ne names the field",
        {"not": {"field": "status", "ne": "open"}},
        {"status": "new"},
        "the condition on status is not met",
    ),
    Case(
        "not over in names the field",
        {"not": {"field": "status", "in": ["new"]}},
        {"status": "new"},
        "the condition on status is not met",
    ),
    Case(
        "not over notIn names the field",
        {"not": {"field": "status", "notIn": ["new"]}},
        {"status": "open"},
        "the condition on status is not met",
    ),
    Case(
        "not over all names the record",
        {"not": {"all": [{"field": "done", "eq": True}]}},
        {"done": True},
        "the condition on the record is not met",
    ),
    Case(
        "not over any names the record",
        {"not": {"any": [{"field": "done", "eq": True}]}},
        {"done": True},
        "the condition on the record is not met",
    ),
    Case(
        "not over not names the record",
        {"not": {"not": {"field": "done", "eq": False}}},
        {"done": True},
        "the condition on the record is not met",
    ),
    Case(
        "double negation holds", {"not": {"not": {"field": "done", "eq": False}}}, {"done": False}
    ),
]

DONE = {"field": "done", "ne": True}
OPEN = {"field": "status", "eq": "open"}
OWNED = {"field": "owner", "isBlank": False}

COMBINATORS = [
    Case("all holds", {"all": [DONE, OPEN, OWNED]}, {"status": "open", "owner": "t1"}),
    Case(
        "all reports the first failing branch",
        {"all": [DONE, OPEN, OWNED]},
        {"status": "new"},
        'status is "new", not "open"',
    ),
    Case(
        "all skips passing branches",
        {"all": [DONE, OPEN, OWNED]},
        {"status": "open"},
        "owner is blank",
    ),
    Case("any holds on a later branch", {"any": [OPEN, OWNED]}, {"owner": "t1"}),
    Case("any holds on the first branch", {"any": [OPEN, OWNED]}, {"status": "open"}),
    Case(
        "any reports its first branch",
        {"any": [OPEN, OWNED]},
        {"status": "new"},
        'status is "new", not "open"',
    ),
    Case(
        "any reports the first branch even when later ones say more",
        {"any": [OWNED, {"all": [DONE, OPEN]}]},
        {"done": True},
        "owner is blank",
    ),
    Case(
        "nested any inside all",
        {"all": [DONE, {"any": [OPEN, {"field": "points", "in": [1, 2]}]}]},
        {"status": "new", "points": 5},
        'status is "new", not "open"',
    ),
    Case(
        "nested not inside any",
        {"any": [{"not": OWNED}, OPEN]},
        {"owner": "t1", "status": "new"},
        "owner is set",
    ),
]

UNRECOGNISED = [
    Case(
        "a leaf without an operator",
        {"field": "status"},
        {"status": "open"},
        "the condition on the record is not met",
    ),
    Case("not a mapping", ["status"], {}, "the condition on the record is not met"),
]


@pytest.mark.parametrize(
    "case",
    LEAVES + COERCIONS + NEGATIONS + COMBINATORS + UNRECOGNISED,
    ids=_ids(LEAVES + COERCIONS + NEGATIONS + COMBINATORS + UNRECOGNISED),
)
def test_blocked_reason(case: Case) -> None:
    assert evaluate(case.pred, TASKS, case.record) == case.reason


@dataclass(frozen=True)
class Rendered:
    value: Any
    text: str


RENDERED = [
    Rendered(None, "blank"),
    Rendered("", '""'),
    Rendered("open", '"open"'),
    Rendered("caf\u00e9 \U0001d11e", '"caf\u00e9 \U0001d11e"'),
    Rendered(1.0, "1"),
    Rendered(-0.0, "0"),
    Rendered(1.5, "1.5"),
    Rendered(12, "12"),
    Rendered(True, "true"),
    Rendered(False, "false"),
    Rendered([1.0, "a", None], '[1,"a",null]'),
    Rendered(("a",), '["a"]'),
    Rendered({"k": False, "n": 2.0}, '{"k":false,"n":2}'),
]


@pytest.mark.parametrize("case", RENDERED, ids=[repr(c.value) for c in RENDERED])
def test_render(case: Rendered) -> None:
    assert render(case.value) == case.text


@dataclass(frozen=True)
class Declared:
    name: str
    record: dict[str, Any]
    reason: str | None


KANBAN = load_mapping(ROOT / "mappings" / "conformance-kanban.yaml", resolve_env=False)
FINISH = KANBAN.operation("finish-card")

DECLARED = [
    Declared("not done yet", {"title": "Welcome card"}, None),
    Declared("done false", {"done": False}, None),
    Declared("done", {"done": True}, "done is true"),
    Declared("done stored as text", {"done": "true"}, "done is true"),
]


@pytest.mark.parametrize("case", DECLARED, ids=[c.name for c in DECLARED])
def test_the_declared_predicate_of_the_reference_model(case: Declared) -> None:
    """The predicate as the loader freezes it evaluates like the plain one."""
    assert FINISH is not None and FINISH.applies_when is not None
    assert evaluate(FINISH.applies_when, KANBAN.entities["cards"], case.record) == case.reason


def test_frozen_lists_and_maps_compare_like_plain_ones() -> None:
    text = TASKS_YAML.replace(
        "operations: []",
        """operations:
  - name: tag-it
    module: work
    entity: tasks
    destructive: false
    params: {}
    appliesWhen:
      any:
        - {field: tags, eq: [t1, t2]}
        - {field: meta, in: [{a: 1}, {b: [2]}]}
""",
    )
    mapping = load_mapping_text(text, resolve_env=False)
    op = mapping.operation("tag-it")
    assert op is not None
    entity = mapping.entities["tasks"]
    assert evaluate(op.applies_when, entity, {"tags": ["t1", "t2"]}) is None
    assert evaluate(op.applies_when, entity, {"meta": {"b": [2]}}) is None
    assert evaluate(op.applies_when, entity, {"tags": ["t2"]}) == 'tags is ["t2"], not ["t1","t2"]'
