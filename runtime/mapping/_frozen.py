"""Plain JSON values frozen for the model and thawed back for the document."""

from __future__ import annotations

from collections.abc import Mapping as AbcMapping
from types import MappingProxyType
from typing import Any


def freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    if isinstance(value, AbcMapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value
