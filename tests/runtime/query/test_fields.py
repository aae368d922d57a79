"""The fields parameter: parsing, projection (nested, arrays, `*`), and `:excerpt`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from runtime.protocol import ProtocolError
from runtime.query import Excerpt, FieldPick, parse_fields, project_fields

RECORD: dict[str, Any] = {
    "id": "c1",
    "title": "Buy milk",
    "body": "<p>Hello <b>world</b></p><script>x()</script><p>Again</p>",
    "points": 3,
    "expand": {
        "owner": {"id": "u1", "name": "Ann", "email": "ann@example.com"},
        "tags": [{"id": "t1", "name": "a"}, {"id": "t2", "name": "b"}],
    },
    "labels": ["home", "work"],
}


def test_parse_fields_splits_trims_and_skips_empty_items() -> None:
    assert parse_fields(" id, title,,expand.owner.name ,") == (
        FieldPick(("id",)),
        FieldPick(("title",)),
        FieldPick(("expand", "owner", "name")),
    )


def test_parse_fields_reads_the_excerpt_modifier_with_its_commas() -> None:
    assert parse_fields("body:excerpt(10,true),id") == (
        FieldPick(("body",), Excerpt(10, True)),
        FieldPick(("id",)),
    )
    assert parse_fields("body:excerpt(5)")[0].excerpt == Excerpt(5, False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("title:upper", "unknown fields modifier ':upper'"),
        ("body:excerpt(0)", "expected :excerpt(maxLength > 0"),
        ("body:excerpt(a)", "expected :excerpt(maxLength > 0"),
        ("body:excerpt(1,true,3)", "expected :excerpt(maxLength > 0"),
        ("body:excerpt", "unknown fields modifier ':excerpt'"),
    ],
)
def test_bad_modifiers_are_refused(text: str, message: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_fields(text)
    assert caught.value.code == "invalid_filter" and message in caught.value.message


@dataclass(frozen=True)
class Case:
    fields: str
    expected: dict[str, Any]


CASES = [
    Case("id,title", {"id": "c1", "title": "Buy milk"}),
    Case("id,nope", {"id": "c1"}),
    Case("expand.owner.name", {"expand": {"owner": {"name": "Ann"}}}),
    Case("expand.tags.name", {"expand": {"tags": [{"name": "a"}, {"name": "b"}]}}),
    Case("labels.x", {"labels": ["home", "work"]}),
    Case("points.x", {"points": 3}),
    Case("expand,expand.owner.name", {"expand": RECORD["expand"]}),
    Case(
        "*,expand.owner.name",
        {
            **{k: v for k, v in RECORD.items() if k != "expand"},
            "expand": {"owner": {"name": "Ann"}},
        },
    ),
    Case("expand.owner.*,id", {"id": "c1", "expand": {"owner": RECORD["expand"]["owner"]}}),
    Case("body:excerpt(100)", {"body": "Hello world Again"}),
    Case("body:excerpt(8,true),points:excerpt(1)", {"body": "Hello wo...", "points": 3}),
    Case("", RECORD),
]


@pytest.mark.parametrize("case", CASES, ids=[c.fields or "empty" for c in CASES])
def test_project_fields(case: Case) -> None:
    assert project_fields(RECORD, parse_fields(case.fields)) == case.expected


def test_projection_copies() -> None:
    projected = project_fields(RECORD, parse_fields("id"))
    projected["id"] = "changed"
    assert RECORD["id"] == "c1"


@pytest.mark.parametrize(
    ("html", "excerpt", "expected"),
    [
        ("<p>a</p><p>b</p>", Excerpt(10), "a b"),
        ("<b>a</b><i>b</i>", Excerpt(10), "ab"),
        ("<style>p{}</style><img src=x>text<svg><text>no</text></svg>", Excerpt(10), "text"),
        ("  many   spaces \n here ", Excerpt(100), "many spaces here"),
        ("exactly five", Excerpt(12, True), "exactly five"),
        ("0123456789", Excerpt(5, True), "01234..."),
        ("ab  cd", Excerpt(3, True), "ab..."),
        ("&amp;&lt;", Excerpt(5), "&<"),
    ],
)
def test_excerpt(html: str, excerpt: Excerpt, expected: str) -> None:
    assert excerpt.apply(html) == expected


def test_excerpt_leaves_non_strings_alone() -> None:
    assert Excerpt(2).apply(12345) == 12345
    assert Excerpt(2).apply(None) is None
