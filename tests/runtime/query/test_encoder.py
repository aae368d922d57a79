"""Filter values pushed down are spelled as the upstream stores them (a field's codec)."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.mapping import Field, FieldType
from runtime.query import encode_filter


class Plain:
    """The least an encoder does: a value's text."""

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        if isinstance(value, list):
            return ",".join(map(str, value))
        return None if value is None else str(value)

    def sort_param(self, spec: Any, keys: Any, *, entity: Any = None) -> tuple[str, str]:
        raise NotImplementedError


def field(kind: str, codec: str | None) -> Field:
    return Field(name="f", type=FieldType(kind), source=("f",), codec=codec)


@pytest.mark.parametrize(
    ("kind", "codec", "value", "text"),
    [
        ("datetime", "epoch-seconds", "2026-12-02T18:05:34Z", "1796234734"),
        ("datetime", "epoch-ms", "2026-12-02T18:05:34.5Z", "1796234734500"),
        ("boolean", "int-bool", True, "1"),
        ("number", "decimal-string", 2.5, "2.5"),
        ("datetime", "epoch-seconds", ["1970-01-01T00:00:01Z", "1970-01-01T00:00:02Z"], "1,2"),
        ("datetime", None, "2026-12-02T18:05:34Z", "2026-12-02T18:05:34Z"),
    ],
)
def test_a_codec_spells_the_pushed_value(
    kind: str, codec: str | None, value: Any, text: str
) -> None:
    assert encode_filter(Plain(), ">", field(kind, codec), value) == text
