"""Refs are confirmed by a lookup; numbers without a name are ambiguous, never guessed."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe._draft import Claim
from mapper.probe.decide._refs import by_name_and_format, by_name_only, decide, id_like

ENTITIES = {
    "lists": frozenset({"list_todo", "list_doing", "1", "2"}),
    "boards": frozenset({"board_main", "1", "2"}),
    "tags": frozenset({"tag_bug", "tag_ops"}),
}


def _lookup(existing: dict[str, set[str]]) -> Any:
    asked: list[tuple[str, Any]] = []

    def lookup(target: str, value: Any) -> bool:
        asked.append((target, value))
        return str(value) in existing.get(target, set())

    lookup.asked = asked  # type: ignore[attr-defined]
    return lookup


@pytest.mark.parametrize(
    ("field", "values", "existing", "explicit", "type_", "entity", "confidence"),
    [
        (
            "list",
            ["list_todo", "list_doing", None],
            {"lists": {"list_todo", "list_doing"}},
            None,
            "ref",
            "lists",
            "high",
        ),
        (
            "tags",
            [["tag_bug"], [], ["tag_ops", "tag_bug"]],
            {"tags": {"tag_bug", "tag_ops"}},
            None,
            "list<ref>",
            "tags",
            "high",
        ),
        (
            "list_id",
            [1, 2],
            {"lists": {"1", "2"}, "boards": {"1", "2"}},
            None,
            "ref",
            "lists",
            "high",
        ),
        ("owner", ["board_main"], {"boards": {"board_main"}}, None, "ref", "boards", "medium"),
        ("rel", ["7"], {"lists": {"7"}}, "lists", "ref", "lists", "high"),
        ("list", ["list_gone"], {}, None, None, None, "low"),
        ("size", [1, 2], {"lists": {"1", "2"}, "boards": {"1", "2"}}, None, None, None, "low"),
        ("title", ["Welcome card"], {}, None, None, None, "low"),
    ],
)
def test_decisions(
    field: str,
    values: list[Any],
    existing: dict[str, set[str]],
    explicit: str | None,
    type_: str | None,
    entity: str | None,
    confidence: str,
) -> None:
    decision = decide(field, values, ENTITIES, _lookup(existing), explicit=explicit)
    assert decision is not None
    assert (decision.type, decision.entity, decision.confidence) == (type_, entity, confidence)


def test_one_lookup_per_field_on_the_shortest_sorted_value() -> None:
    lookup = _lookup({"lists": {"list_todo", "list_doing"}})
    decide("list", ["list_todo", "list_doing"], ENTITIES, lookup)
    assert lookup.asked == [("lists", "list_todo")]


def test_text_ids_resolving_at_two_entities_are_ambiguous() -> None:
    entities = {"a": frozenset({"x1"}), "b": frozenset({"x1"})}
    decision = decide("thing", ["x1"], entities, _lookup({"a": {"x1"}, "b": {"x1"}}))
    assert decision is not None and decision.ambiguous and decision.type is None
    assert decision.note == "ambiguous-id: sampled values resolve at a, b"


@pytest.mark.parametrize(
    ("values", "shape"),
    [
        (["a", None], "scalar"),
        ([1, 2], "scalar"),
        ([["a"], ["b", "c"]], "list"),
        ([1.5], None),
        ([True], None),
        ([[]], None),
        ([None], None),
        ([{"id": 1}], None),
    ],
)
def test_id_like(values: list[Any], shape: str | None) -> None:
    assert id_like(values) == shape


def test_without_live_samples_a_name_is_only_a_candidate() -> None:
    decision = by_name_only("list", "string", ENTITIES)
    assert decision is not None and decision.type is None and decision.candidates == ("lists",)
    assert by_name_only("list", "boolean", ENTITIES) is None
    assert by_name_only("colour", "string", ENTITIES) is None


@pytest.mark.parametrize(
    ("field", "claim", "formats", "entity"),
    [
        # named for an entity, and in the format of its ids: a ref for the verifier to prove
        (
            "flow_id",
            Claim("openapi", "string", wire="string", format="uuid"),
            {"flows": "uuid"},
            "flows",
        ),
        # the target's ids are in another format, or in none the spec says
        (
            "flow_id",
            Claim("openapi", "string", wire="string", format="uuid"),
            {"flows": None},
            None,
        ),
        # a format ids do not have alone, or no format at all
        (
            "flow_id",
            Claim("openapi", "string", wire="string", format="date"),
            {"flows": "date"},
            None,
        ),
        ("flow_id", Claim("openapi", "string", wire="string"), {"flows": None}, None),
        # named for nothing mapped
        (
            "pool_id",
            Claim("openapi", "string", wire="string", format="uuid"),
            {"flows": "uuid"},
            None,
        ),
    ],
)
def test_with_nothing_stored_a_ref_is_named_and_in_its_target_id_format(
    field: str, claim: Claim, formats: dict[str, str | None], entity: str | None
) -> None:
    decision = by_name_and_format(field, claim, formats, "openapi")
    assert (decision.entity if decision else None) == entity
    if decision is not None:
        assert decision.type == "ref" and decision.confidence == "low"
        assert [e.source for e in decision.evidence] == ["name", "openapi"]


NESTED = [{"id": 3, "name": "high"}, {"id": 1, "name": "low"}, None]


@pytest.mark.parametrize(
    ("field", "values", "existing", "type_", "entity", "nested"),
    [
        ("severity", NESTED, {"severities": {"1", "3"}}, "ref", "severities", "id"),
        ("severity", NESTED, {}, None, None, None),  # no lookup answered: not a ref
        (
            "owner",
            [{"id": "board_main", "name": "Main"}],
            {"boards": {"board_main"}},
            "ref",
            "boards",
            "id",
        ),
        ("meta", [{"id": {"x": 1}}], {}, None, None, None),  # an object id is no id
        ("meta", [{"name": "no id"}], {}, None, None, None),
        ("tags", [[{"id": 1, "name": "bug"}], []], {"tags": {"1"}}, "list<ref>", "tags", "id"),
        ("tags", [[{"id": 1}, {"name": "x"}]], {"tags": {"1"}}, None, None, None),
    ],
)
def test_a_ref_rendered_as_a_nested_object_is_decided_on_its_id(
    field: str,
    values: list[Any],
    existing: dict[str, set[str]],
    type_: str | None,
    entity: str | None,
    nested: str | None,
) -> None:
    entities = {**ENTITIES, "severities": frozenset({"1", "3"})}
    lookup = _lookup(existing)
    decision = decide(field, values, entities, lookup)
    got = (decision.type, decision.entity, decision.nested) if decision else (None, None, None)
    assert got == (type_, entity, nested)
    if type_ is not None:
        assert decision is not None and decision.confidence in ("high", "medium")
        assert [e.source for e in decision.evidence][1:] == ["sample", "lookup"]
        assert (
            decision.evidence[1].detail
            == "a nested object; its 'id' is the reference and 'name' its label"
        )
        assert len(lookup.asked) == 1 and not isinstance(lookup.asked[0][1], dict)
