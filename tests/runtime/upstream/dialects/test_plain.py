"""Filter dialects: values and sort keys as each upstream spells them."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.mapping import SortSpec
from runtime.protocol import ProtocolError
from runtime.upstream import DIALECTS, DjangoFilterDialect, PlainDialect, dialect_for

from ..support import CARDS, NOTES

DJANGO = DjangoFilterDialect()
PLAIN = PlainDialect()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (1, "1"),
        (1.0, "1"),
        (1.5, "1.5"),
        (-0.0, "0"),
        (10**21, "1000000000000000000000"),
        ("a,b", "a,b"),
        ("", ""),
        (None, None),
        (float("nan"), None),
        (["a", "b"], "a,b"),
        ([1, 2.0, True], "1,2,true"),
        (["a", None], None),
        ({"k": 1}, '{"k":1}'),
    ],
)
@pytest.mark.parametrize("dialect", [DJANGO, PLAIN], ids=["django-filter", "none"])
def test_encode_value(dialect: Any, value: Any, text: str | None) -> None:
    assert dialect.encode_value(CARDS.fields["title"], value) == text


def test_django_null_param() -> None:
    assert DJANGO.null_param("due", True) == ("due__isnull", "true")
    assert DJANGO.null_param("due__exact", False) == ("due__isnull", "false")
    assert PLAIN.null_param("due", True) is None


def test_django_sort_uses_upstream_names() -> None:
    spec = CARDS.sort
    assert spec is not None
    keys = [("created", True), ("title", False)]
    assert DJANGO.sort_param(spec, keys, entity=CARDS) == ("ordering", "-created_at,title")
    assert DJANGO.sort_param(spec, keys) == ("ordering", "-created,title")


def test_nested_source_names() -> None:
    spec = SortSpec(param="sort", fields=("title",), desc="-", separator=",")
    assert DJANGO.sort_param(spec, [("title", True)], entity=NOTES) == (
        "sort",
        "-attributes__title",
    )
    assert PLAIN.sort_param(spec, [("title", False)], entity=NOTES) == ("sort", "attributes.title")


def test_sort_spec_spelling_is_respected() -> None:
    spec = SortSpec(param="order", fields=("a", "b"), desc="~", separator="|")
    assert PLAIN.sort_param(spec, [("a", True), ("b", False)]) == ("order", "~a|b")


def test_sort_by_unlisted_field_is_refused() -> None:
    assert CARDS.sort is not None
    with pytest.raises(ValueError, match="due"):
        DJANGO.sort_param(CARDS.sort, [("due", False)], entity=CARDS)


def test_registry() -> None:
    assert dialect_for("django-filter") is DIALECTS["django-filter"]
    assert dialect_for("none").name == "none"
    with pytest.raises(ProtocolError) as info:
        dialect_for("ransack")
    assert info.value.code == "not_implemented"
