"""The guard (§10): every rule, code and expected text, ordering, PATCH and operation params."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from runtime.mapping import Entity, Field, load_mapping
from runtime.protocol import MAX_REFS, OPAQUE_EXPECTED, Unrepresentable
from runtime.protocol._guard import (
    CREATE_ONLY_TEXT,
    NO_WRITABLE_TEXT,
    REQUIRED_TEXT,
    UPDATE_ONLY_TEXT,
    Violation,
    check,
    guard_error,
)


def f(name: str, kind: str, **extra: Any) -> Field:
    return Field(name=name, type=kind, source=(name,), **extra)


def fields(*items: Field) -> dict[str, Field]:
    return {item.name: item for item in items}


CARDS = fields(
    f("title", "string", required=True, max=200),
    f("list", "ref", entity="lists"),
    f("priority", "enum", values=("none", "low", "medium", "high", "urgent")),
    f("due", "string", max=10, day_key=True),
    f("done", "boolean"),
    f("created", "datetime", read_only=True),
)
KIT = fields(
    f("name", "string", max=5),
    f("count", "number", max=1),
    f("flag", "boolean"),
    f("when", "datetime"),
    f("level", "enum", values=(1, "2", "x")),
    f("tags", "list<enum>", values=("a", "b", "c")),
    f("owner", "ref", entity="people"),
    f("members", "list<ref>", entity="people"),
    f("meta", "json"),
    f("blob", "binary"),
    f("secret", "string", write_only=True),
    f("free", "enum"),
)
CARD_NAMES = "one of: title, list, priority, due, done"
PRIORITIES = "one of: none | low | medium | high | urgent"
DAY_TEXT = 'a day key "YYYY-MM-DD"'


@dataclass(frozen=True)
class One:
    """A single key of KIT with `require` off: accepted when `code` is None."""

    key: str
    value: Any
    code: str | None = None
    expected: str | None = None


def ok(key: str, *values: Any) -> list[One]:
    return [One(key, value) for value in values]


def bad(key: str, code: str, expected: str, *values: Any) -> list[One]:
    return [One(key, value, code, expected) for value in values]


AT_MOST_5 = "text of at most 5 characters"
# fmt: off
# "" never reaches the number rule: it is blank, so it clears the field.
NUMBER_TEXT_OK = ("12", " 12 ", "1e3", "1E3", "0x10", "0XfF", "+5",
                  ".5", "5.", "-1.5e-3", "0b11", "0o7", "\u00a012\ufeff", "\n7\t")
NUMBER_TEXT_BAD = ("  ", "abc", "1_000", "NaN", "-0x10", "0x", "1e", ".", "infinity", "12abc",
                   "1,5", "\u0663", "\x1c12", "0b2", "++5", "5..", "Infinity1")
# Numbers to JavaScript, but no upstream stores them: refused (a documented departure).
NUMBER_TEXT_INFINITE = ("Infinity", "-Infinity", "+Infinity", " Infinity ", "1e999", "-1e400")
UNREPRESENTABLE = (Unrepresentable("NaN"), Unrepresentable("Infinity"),
                   Unrepresentable("-Infinity"), Unrepresentable("1e400"), float("inf"),
                   float("nan"))
BAD_TEXT = "text without NUL or unpaired surrogate characters"
ODD_VALUE = "a value without NaN, Infinity, NUL or unpaired surrogates"
DATES_OK = ("2026-07-30", "2026-07-30T09:15:00.000Z", "2026-07-30 09:15", "2026-07-30T09:15-0230",
            "2026-07-30T09:15:00.123456+02:00", "2026-07-30T99:99", "2026-07-30 Z",
            "2026-07-30\u00a0Z", "2024-02-29", "2000-02-29",
            "2026-07-30\n")  # the optional whitespace before a zone takes it, as in JS
DATES_BAD = ("2026-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-07-00",
             "2026-07-30Z\n", "\uff12\uff10\uff12\uff16-07-30", "2026-07-30T09", "tomorrow",
             "2026-07-30T09:15:00.Z", "2026-7-30", 20260730, "2026-07-30T09:15:00+2:00")
# fmt: on

SINGLE = [
    *ok("name", "abcde", "\u00e9" * 5, "\U0001f600" * 2, "   ", None, ""),
    *bad("name", "invalid_string", "text", 5, ["a"], True),
    *bad("name", "invalid_string", AT_MOST_5, "abcdef", "\U0001f600" * 3),
    *bad("name", "invalid_string", BAD_TEXT, "\ud800", "a\udfffb", "nul\x00", "\ud800" * 6),
    *bad("name", "invalid_string", "text", Unrepresentable("NaN")),
    *ok("count", 12, -1.5, 10**30, *NUMBER_TEXT_OK),
    *bad("count", "invalid_number", "a number", True, False, [1], {"n": 1}, *NUMBER_TEXT_BAD),
    *bad("count", "invalid_number", "a finite number", *NUMBER_TEXT_INFINITE, *UNREPRESENTABLE),
    *ok("flag", True, False, "true", "false"),
    *bad("flag", "invalid_boolean", "true or false", "True", " true", "1", 1, 0),
    *ok("when", *DATES_OK),
    *bad("when", "invalid_date", "an ISO 8601 date", *DATES_BAD),
    *ok("level", 1, "1", 1.0, 2, ["x"]),
    *bad("level", "invalid_enum", "one of: 1 | 2 | x", "2.0", True, {}, "X"),
    *ok("free", "anything"),
    *ok("tags", ["a", "b"], []),
    *bad("tags", "invalid_enum", "an array of: a | b | c", "a", {"a": 1}),
    *bad("tags", "invalid_enum", "each of: a | b | c", ["a", "z"], [None]),
    *ok("owner", 123, "rec_1", "100%", "a.b", "..."),
    *bad("owner", "invalid_ref", "a record id", True, 1.5, ["p1"], {"id": "p1"}),
    *bad("owner", "invalid_ref", OPAQUE_EXPECTED, "a/b", "..", ".", "a\\b", "a?b", "a#b",
         "a\tb", "..%2F..%2Fboards%2Fboard_main", "%252F", "..%5C", "%2e%2e", "%2E", "x%00"),
    *ok("members", ["p1", 2], []),
    *bad("members", "invalid_ref", "an array of record ids", "p1", ["p1", None], [True],
         {"p1": 1}),
    *bad("members", "invalid_ref", OPAQUE_EXPECTED, ["p1", "../x"]),
    *ok("meta", {"any": [1, "x"]}),
    *bad("meta", "invalid_json", ODD_VALUE, {"n": Unrepresentable("NaN")}, ["\ud800"]),
    *bad("tags", "invalid_enum", ODD_VALUE, ["a\x00"]),
    *ok("blob", "AAAA"),
    *ok("secret", "hunter2"),
]  # fmt: skip


@pytest.mark.parametrize("case", SINGLE, ids=lambda c: f"{c.key}={c.value!r}")
def test_single_key_rules(case: One) -> None:
    got = check(KIT, {case.key: case.value}, require=False)
    if case.code is None:
        assert got == []
    else:
        assert got == [Violation(case.code, case.key, case.expected or "", case.value)]


@dataclass(frozen=True)
class Case:
    why: str
    body: Any
    want: tuple[str, ...]  # "code:field" per violation, in order
    schema: Mapping[str, Field] = field(default_factory=lambda: CARDS)
    require: bool = True
    write_allow: tuple[str, ...] = ()
    params: bool = False
    text: str | None = None  # the first violation's expected text


def c(why: str, body: Any, *want: str, **options: Any) -> Case:
    return Case(why, body, want, **options)


ORDERED = fields(
    f("a", "string", required=True),
    f("due", "string", day_key=True),
    f("b", "number", required=True),
    f("stamp", "datetime", required=True, read_only=True),
)
PARAMS = fields(
    f("card", "ref", entity="cards", required=True),
    f("day", "string", max=10, day_key=True),
    f("frozen", "string", read_only=True, required=True),
)
CARD = fields(PARAMS["card"])
X = {"title": "x"}
PATCH: dict[str, Any] = {"require": False}
OPS: dict[str, Any] = {"schema": PARAMS, "params": True}

CASES = [
    c("conformance: every violation at once",
      {**X, "due": "tomorrow", "priority": "nope", "bogus": 1},
      "invalid_daykey:due", "invalid_enum:priority", "unknown_field:bogus",
      text='a day key "YYYY-MM-DD"'),
    c("conformance: a prototype name is unknown", {**X, "constructor": "evil"},
      "unknown_field:constructor", text=CARD_NAMES),
    c("conformance: read-only field", {"title": "ok", "created": "2020-01-01"},
      "read_only_field:created", text="not writable (server-managed)"),
    c("__proto__ is unknown", {**X, "__proto__": {}}, "unknown_field:__proto__"),
    c("toString is unknown", {**X, "toString": "x"}, "unknown_field:toString"),
    c("read-only beats blank", {**X, "created": None}, "read_only_field:created"),
    c("enum text", {**X, "priority": "HIGH"}, "invalid_enum:priority", text=PRIORITIES),
    c("blank clears an optional field", {**X, "priority": None, "due": ""}),
    c("blank required, once", {"title": ""}, "missing_required:title", text=REQUIRED_TEXT),
    c("null required, once", {"title": None}, "missing_required:title"),
    c("absent required on create", {"done": True}, "missing_required:title", text=REQUIRED_TEXT),
    c("PATCH: absent required is fine", {}, **PATCH),
    c("PATCH: partial write", {"done": "false"}, **PATCH),
    c("PATCH: blank required refused", {"title": ""}, "missing_required:title", **PATCH),
    c("PATCH: unknown still refused", {"nope": 1}, "unknown_field:nope", **PATCH),
    c("day key before text", {**X, "due": 20261231}, "invalid_daykey:due"),
    c("day key with a time", {**X, "due": "2026-12-31T00:00"}, "invalid_daykey:due"),
    c("day key off the calendar", {**X, "due": "2026-02-30"}, "invalid_daykey:due"),
    c("day key day-first", {**X, "due": "31-12-2026"}, "invalid_daykey:due"),
    c("day key trailing newline", {**X, "due": "2026-12-31\n"}, "invalid_daykey:due"),
    c("day key accepted", {**X, "due": "2026-12-31"}),
    c("title of 200 units", {"title": "t" * 200}),
    c("title of 201 units", {"title": "t" * 201}, "invalid_string:title",
      text="text of at most 200 characters"),
    c("writeAllow skips entirely", {**X, "password": 1}, write_allow=("password",)),
    c("writeAllow even over a field", {"title": 5}, write_allow=("title",)),
    c("writeAllow only its keys", {**X, "password": 1, "other": 2}, "unknown_field:other",
      write_allow=("password",)),
    c("body order, then declaration order", {"stamp": "x", "due": "no", "zz": 1},
      "read_only_field:stamp", "invalid_daykey:due", "unknown_field:zz",
      "missing_required:a", "missing_required:b", schema=ORDERED),
    c("read-only required is never missing", {"a": "x", "b": 1}, schema=ORDERED),
    c("no writable fields", {"x": 1}, "unknown_field:x", schema={}, text=NO_WRITABLE_TEXT),
    c("only read-only fields", {"x": 1}, "unknown_field:x",
      schema=fields(f("c", "datetime", read_only=True)), text=NO_WRITABLE_TEXT),
    c("array body", ["a"], "invalid_json:"),
    c("scalar body", "text", "invalid_json:", **PATCH),
    c("writeAllow values must still be storable", {**X, "password": "\ud800"},
      "invalid_json:password", write_allow=("password",)),
    c("params: required always", {}, "missing_required:card", schema=CARD, params=True),
    c("params: unknown", {"card": "c1", "bogus": 1}, "unknown_field:bogus",
      schema=CARD, params=True, text="one of: card"),
    c("params: a day-key param is not checked", {"card": "c", "day": "tomorrow", "frozen": "x"},
      **OPS),
    c("params: read-only is not carried", {"card": "c"}, "missing_required:frozen", **OPS),
    c("params: no writeAllow", {"card": "c", "frozen": "x", "pw": 1}, "unknown_field:pw",
      write_allow=("pw",), **OPS),
    c("params: none declared", {"x": 1}, "unknown_field:x", schema={}, params=True,
      text=NO_WRITABLE_TEXT),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.why)
def test_guard_scenarios(case: Case) -> None:
    got = check(
        case.schema,
        case.body,
        require=case.require,
        write_allow=case.write_allow,
        params=case.params,
    )
    assert tuple(f"{v.code}:{v.field}" for v in got) == case.want
    if case.text is not None:
        assert got[0].expected == case.text


def test_violations_carry_the_raw_value_and_null_when_absent() -> None:
    got = check(CARDS, {"due": "tomorrow", "bogus": [1, {"a": None}]}, require=True)
    assert [v.as_dict() for v in got] == [
        {"code": "invalid_daykey", "field": "due", "expected": DAY_TEXT, "got": "tomorrow"},
        {
            "code": "unknown_field",
            "field": "bogus",
            "expected": CARD_NAMES,
            "got": [1, {"a": None}],
        },
        {"code": "missing_required", "field": "title", "expected": REQUIRED_TEXT, "got": None},
    ]


def test_the_reference_model_guards_the_same() -> None:
    root = Path(__file__).resolve().parents[3]
    mapping = load_mapping(root / "mappings" / "conformance-kanban.yaml", resolve_env=False)
    cards = mapping.entities["cards"].fields
    body = {"title": "x", "due": "tomorrow", "priority": "nope", "bogus": 1}
    assert [v.code for v in check(cards, body, require=True)] == [
        "invalid_daykey",
        "invalid_enum",
        "unknown_field",
    ]
    finish = mapping.operation("finish-card")
    assert finish is not None
    for args, want in (({}, "missing_required:card"), ({"card": "c", "b": 1}, "unknown_field:b")):
        got = check(finish.params, args, require=True, params=True)
        assert [f"{v.code}:{v.field}" for v in got] == [want]


NOW = "2026-07-30T09:15:00.000Z"


@dataclass(frozen=True)
class Message:
    violation: Violation
    text: str
    server_now: str = NOW


MESSAGES = [
    Message(Violation("invalid_daykey", "due", DAY_TEXT, "tomorrow"),
            'Rejected by a2app (invalid_daykey): field "due" expects a day key "YYYY-MM-DD";'
            ' got "tomorrow". Example: "2026-07-30". Server time is 2026-07-30T09:15:00.000Z.'),
    Message(Violation("invalid_date", "when", "an ISO 8601 date", 20260730),
            'Rejected by a2app (invalid_date): field "when" expects an ISO 8601 date; got 20260730.'
            ' Example: "2026-07-30". Server time is 2026-07-30T09:15:00.000Z.'),
    Message(Violation("unknown_field", "bogus", "one of: a, b", {"x": [1.0, 2.5, "\u00e9"]}),
            'Rejected by a2app (unknown_field): field "bogus" expects one of: a, b;'
            ' got {"x":[1,2.5,"\u00e9"]}. Server time is 2026-07-30T09:15:00.000Z.'),
    Message(Violation("missing_required", "title", REQUIRED_TEXT, None),
            'Rejected by a2app (missing_required): field "title" expects a non-blank value'
            " (required field); got null. Server time is 2026-07-30T09:15:00.000Z."),
    Message(Violation("invalid_number", "n", "a number", 1e-7),
            'Rejected by a2app (invalid_number): field "n" expects a number; got 1e-7.', ""),
]  # fmt: skip


@pytest.mark.parametrize("case", MESSAGES, ids=lambda case: case.violation.code)
def test_generated_message(case: Message) -> None:
    error = guard_error([case.violation], case.server_now)
    assert error.message == case.text


def test_guard_envelope() -> None:
    violations = check(CARDS, {"title": "x", "due": "tomorrow", "bogus": 1}, require=True)
    error = guard_error(violations, NOW)
    body = error.body()
    assert error.status == 400
    assert body["a2app"] is True and body["ok"] is False
    assert (body["code"], body["field"], body["got"]) == ("invalid_daykey", "due", "tomorrow")
    assert body["expected"] == DAY_TEXT
    assert body["violations"] == [v.as_dict() for v in violations]
    assert len(body["violations"]) == 2
    with pytest.raises(ValueError):
        guard_error([], NOW)


NULLABLE = fields(
    f("text", "string", nullable=False),
    f("day", "string", day_key=True, nullable=False),
    f("count", "number", nullable=False),
    f("flag", "boolean", nullable=False),
    f("when", "datetime", nullable=False),
    f("level", "enum", values=("a", "b"), nullable=False),
    f("owner", "ref", entity="people", nullable=False),
    f("members", "list<ref>", entity="people", nullable=False),
    f("meta", "json", nullable=False),
    f("title", "string", required=True, nullable=False),
    f("free", "string"),
)


@pytest.mark.parametrize(
    ("key", "value", "want"),
    [
        ("text", None, "invalid_string:text (not null)"),
        ("text", "", None),  # empty text is text, not a clear
        ("day", "", 'invalid_daykey:a day key "YYYY-MM-DD" (not null)'),
        ("count", None, "invalid_number:a number (not null)"),
        ("count", "", "invalid_number:a number (not null)"),
        ("flag", None, "invalid_boolean:true or false (not null)"),
        ("when", "", "invalid_date:an ISO 8601 date (not null)"),
        ("level", None, "invalid_enum:one of the values (not null)"),
        ("owner", "", "invalid_ref:a record id (not null)"),
        ("members", None, "invalid_ref:an array of record ids (not null)"),
        ("meta", None, "invalid_json:a JSON value (not null)"),
        ("title", "", "missing_required:" + REQUIRED_TEXT),  # required wins, as before
        ("free", None, None),  # nothing declared: a blank clears
    ],
)
def test_nullable_false_refuses_a_blank_with_the_types_own_code(
    key: str, value: Any, want: str | None
) -> None:
    got = [f"{v.code}:{v.expected}" for v in check(NULLABLE, {key: value}, require=False)]
    assert got == ([want] if want else [])


def test_a_body_naming_more_refs_than_the_bound_is_refused_naming_the_limit() -> None:
    schema = fields(f("owner", "ref", entity="people"), f("members", "list<ref>", entity="p"))
    ids = [f"p{n}" for n in range(MAX_REFS)]
    assert check(schema, {"members": ids}, require=False) == []
    got = check(schema, {"members": ids, "owner": "p-extra"}, require=False)
    assert [(v.code, v.field) for v in got] == [("invalid_ref", "owner")]
    assert got[0].expected == f"at most {MAX_REFS} record ids in one write"
    assert [v.field for v in check(schema, {"members": [*ids, "x"]}, require=False)] == ["members"]


def test_a_violation_renders_what_json_cannot_carry_as_text() -> None:
    bad = check(KIT, {"count": Unrepresentable("NaN"), "name": "\ud800"}, require=False)
    rendered = [v.as_dict()["got"] for v in bad]
    assert rendered == ["NaN", "\\ud800"]
    error = guard_error(bad, NOW)
    import json

    json.dumps(error.body(), ensure_ascii=False, allow_nan=False).encode("utf-8")


SLUGGED = Entity(
    name="projects", module="m", path="/p", detail_path="/p/{id}", id_source=("slug",),
    id_type="string", fields=fields(f("name", "string", required=True)), label="name",
    id_client=True,
)  # fmt: skip


@pytest.mark.parametrize(
    ("body", "codes"),
    [
        ({"id": "apollo", "name": "A"}, []),
        ({"name": "A"}, [("missing_required", "id")]),
        ({"id": "", "name": "A"}, [("missing_required", "id")]),
        ({"id": "a/b", "name": "A"}, [("invalid_string", "id")]),
        ({"id": "..", "name": "A"}, [("invalid_string", "id")]),
        ({"id": 7, "name": "A"}, [("invalid_string", "id")]),
    ],
)
def test_a_create_carries_the_id_the_client_chooses(
    body: dict[str, Any], codes: list[tuple[str, str]]
) -> None:
    found = check(SLUGGED.create_fields(), body, require=True)
    assert [(v.code, v.field) for v in found] == codes
    if codes and codes[0][0] == "invalid_string" and isinstance(body["id"], str):
        assert found[0].expected == OPAQUE_EXPECTED


def test_an_update_never_changes_the_id() -> None:
    found = check(SLUGGED.fields, {"id": "other"}, require=False)
    assert [(v.code, v.field) for v in found] == [("unknown_field", "id")]
    assert "id" not in replace(SLUGGED, id_client=False).create_fields()


def test_create_only_field_is_refused_on_update_with_every_other_violation() -> None:
    made = fields(
        f("name", "string", required=True, create_only=True), f("tags", "json"), *CARDS.values()
    )
    body = {"name": "renamed", "priority": "nope", "tags": ["a"]}
    found = check(made, body, require=False, update=True)
    assert [(v.code, v.field) for v in found] == [
        ("read_only_field", "name"),
        ("invalid_enum", "priority"),
    ]
    assert found[0].expected == CREATE_ONLY_TEXT
    assert found[0].got == "renamed"


def test_create_only_field_is_written_on_create() -> None:
    made = fields(f("name", "string", required=True, create_only=True), f("tags", "json"))
    assert check(made, {"name": "first"}, require=True) == []
    assert check(made, {"tags": ["a"]}, require=False, update=True) == []


def test_update_only_field_is_refused_on_create_with_every_other_violation() -> None:
    made = fields(f("pid", "string", update_only=True), *CARDS.values())
    found = check(made, {"pid": "4711", "priority": "nope"}, require=True)
    assert [(v.code, v.field) for v in found][:2] == [
        ("read_only_field", "pid"),
        ("invalid_enum", "priority"),
    ]
    assert found[0].expected == UPDATE_ONLY_TEXT and found[0].got == "4711"
    assert check(made, {"pid": "4711"}, require=False, update=True) == []
