"""DRF OPTIONS metadata, recorded from the sample, read into claims."""

from __future__ import annotations

import pytest

from mapper.probe.sources._options import allowed_methods, read_options

from ..fakes import payload


def test_the_recorded_cards_metadata() -> None:
    view = read_options(payload("drf-options-cards.json"), "GET, POST, HEAD, OPTIONS")
    assert view is not None and view.drf and view.name == "Card List"
    assert view.allowed == frozenset({"GET", "POST", "HEAD", "OPTIONS"})
    claims = {
        n: (c.type, c.required, c.read_only, c.max, c.values, c.related, c.day_key)
        for n, c in view.fields.items()
    }
    assert claims == {
        "id": ("string", False, True, None, (), False, False),
        "title": ("string", True, False, 200, (), False, False),
        "priority": (
            "enum",
            False,
            False,
            None,
            ("none", "low", "medium", "high", "urgent"),
            False,
            False,
        ),
        "due": ("string", False, False, 10, (), False, True),
        "done": ("boolean", False, False, None, (), False, False),
        "created": ("datetime", False, True, None, (), False, False),
        "list": (None, False, False, None, (), True, False),
        "tags": (None, False, False, None, (), True, False),
    }


@pytest.mark.parametrize(
    ("meta", "type_", "wire"),
    [
        ({"type": "decimal"}, "number", "string"),
        (
            {"type": "multiple choice", "choices": [{"value": "a"}, {"value": "b"}]},
            "list<enum>",
            "array:enum",
        ),
        ({"type": "choice", "choices": []}, "string", None),
        ({"type": "file upload"}, "binary", None),
        ({"type": "nested object", "children": {}}, "json", "object"),
        ({"type": "something new"}, "json", None),
    ],
)
def test_labels_map_to_the_vocabulary(meta: dict[str, object], type_: str, wire: object) -> None:
    view = read_options({"renders": [], "actions": {"POST": {"f": meta}}}, None)
    assert view is not None
    assert (view.fields["f"].type, view.fields["f"].wire) == (type_, wire)


def test_anything_else_is_not_drf_metadata() -> None:
    assert read_options({"name": "x"}, None) is None
    assert read_options([], None) is None
    assert allowed_methods(" get,Post ,") == frozenset({"GET", "POST"})
