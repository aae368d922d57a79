"""No known filter language: plain ``param=value`` pairs and ``sort=a,-b``."""

from __future__ import annotations

from typing import Any

from runtime.mapping import Field

from ._base import SourceNamed, scalar_text


class PlainDialect(SourceNamed):
    name = "none"

    def encode_value(self, field: Field | None, value: Any) -> str | None:
        if isinstance(value, list | tuple):
            parts = [scalar_text(v) for v in value]
            if any(p is None for p in parts):
                return None  # a null inside a list has no spelling in a comma list
            return ",".join(p for p in parts if p is not None)
        return scalar_text(value)

    def null_param(self, param: str, is_null: bool) -> tuple[str, str] | None:
        return None
