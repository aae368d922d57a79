"""expand, page, perPage and skipTotal: PocketBase's normalisation and refusals."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from runtime.protocol import ProtocolError
from runtime.query import Paging, parse_expand, parse_paging

EXPANDS = [
    ("owner", (("owner",),)),
    ("owner, tags.owner", (("owner",), ("tags", "owner"))),
    ("a,a.b", (("a", "b"),)),
    ("a.b,a", (("a", "b"),)),
    (".a.,a", (("a",),)),
    ("a,,b", (("a",), ("b",))),
    ("o wner", (("owner",),)),
    ("comments(post).author", (("comments(post)", "author"),)),
    ("a.b.c.d.e.f.g.h", (("a", "b", "c", "d", "e", "f"),)),
    ("a.b.c.d.e.f.g,a.b.c.d.e.f", (("a", "b", "c", "d", "e", "f"),)),
    ("", ()),
]


@pytest.mark.parametrize(("text", "expected"), EXPANDS, ids=[t or "empty" for t, _ in EXPANDS])
def test_parse_expand(text: str, expected: tuple[tuple[str, ...], ...]) -> None:
    assert parse_expand(text) == expected


@pytest.mark.parametrize("text", ["a..b", "a.$", "a-b", "a.(b)"])
def test_malformed_expand_is_refused(text: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_expand(text)
    assert (
        caught.value.code == "invalid_filter" and "invalid expand segment" in caught.value.message
    )


@dataclass(frozen=True)
class Case:
    page: str | int | None
    per_page: str | int | None
    skip_total: str | bool | None
    expected: Paging


CASES = [
    Case(None, None, None, Paging(1, 30, False)),
    Case("", "", "", Paging(1, 30, False)),
    Case("2", "50", "1", Paging(2, 50, True)),
    Case("+3", "1", "true", Paging(3, 1, True)),
    Case("0", "0", "f", Paging(1, 30, False)),
    Case("-3", "-1", "FALSE", Paging(1, 30, False)),
    Case(None, "1000", "T", Paging(1, 1000, True)),
    Case(None, "1001", "False", Paging(1, 1000, False)),
    Case("1", "999999999", None, Paging(1, 1000, False)),
    Case(4, 25, True, Paging(4, 25, True)),
]


@pytest.mark.parametrize("case", CASES, ids=[repr(c)[5:40] for c in CASES])
def test_paging_defaults_and_clamps(case: Case) -> None:
    assert parse_paging(case.page, case.per_page, case.skip_total) == case.expected


def test_offset() -> None:
    assert Paging(3, 20).offset == 40 and Paging().offset == 0


@pytest.mark.parametrize(
    ("page", "per_page", "skip_total", "message"),
    [
        ("abc", None, None, "page must be an integer; got 'abc'"),
        ("1.5", None, None, "page must be an integer"),
        (" 2", None, None, "page must be an integer"),
        ("1_0", None, None, "page must be an integer"),
        ("99999999999999999999", None, None, "page must be an integer in the 64-bit range"),
        (None, "ten", None, "perPage must be an integer"),
        (None, None, "yes", "skipTotal must be a boolean"),
        ("x", "y", "yes", "skipTotal must be a boolean"),
    ],
)
def test_paging_refuses_what_pocketbase_refuses(
    page: str | None, per_page: str | None, skip_total: str | None, message: str
) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_paging(page, per_page, skip_total)
    assert caught.value.code == "invalid_filter" and message in caught.value.message
