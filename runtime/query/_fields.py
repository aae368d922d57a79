"""The `fields` parameter: which keys of each record to return (reference §5.3).

A path keeps that key, recursively inside nested objects and arrays of objects;
`*` keeps every key of its level not named more specifically; a key named
both alone and with a sub-path (`a,a.b`) is kept whole; unknown keys are
simply absent.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runtime.protocol import ProtocolError

from ._excerpt import Excerpt


@dataclass(frozen=True, slots=True)
class FieldPick:
    path: tuple[str, ...]
    excerpt: Excerpt | None = None

    def __str__(self) -> str:
        text = ".".join(self.path)
        if self.excerpt is None:
            return text
        flag = ",true" if self.excerpt.ellipsis else ""
        return f"{text}:excerpt({self.excerpt.max_length}{flag})"


def parse_fields(text: str) -> tuple[FieldPick, ...]:
    """Comma-separated key paths, each optionally followed by `:excerpt(max[, ellipsis])`."""
    return tuple(_pick(item, text) for item in _split(text))


def _split(text: str) -> list[str]:
    # commas inside parentheses or quotes do not separate items
    items: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for c in text:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif c == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        current.append(c)
    items.append("".join(current).strip())
    return [item for item in items if item]


def _pick(item: str, text: str) -> FieldPick:
    path, _, modifier = item.partition(":")
    parts = tuple(path.strip().split("."))
    if not modifier:
        return FieldPick(parts)
    name, _, rest = modifier.strip().partition("(")
    args = [a.strip() for a in rest.rstrip().removesuffix(")").split(",")] if rest else []
    args = [a for a in args if a]
    if name.strip() != "excerpt" or not rest.rstrip().endswith(")"):
        raise _error(f"unknown fields modifier {':' + modifier!r} in {item!r}; only :excerpt", text)
    if not 1 <= len(args) <= 2 or not args[0].isdigit() or int(args[0]) < 1:
        raise _error(f"{item!r}: expected :excerpt(maxLength > 0[, withEllipsis])", text)
    ellipsis = len(args) == 2 and args[1].lower() in ("1", "t", "true")
    return FieldPick(parts, Excerpt(int(args[0]), ellipsis))


def _error(message: str, text: str) -> ProtocolError:
    return ProtocolError("invalid_filter", message, got=text)


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    whole: bool = False
    excerpt: Excerpt | None = None
    wildcard: _Node | None = None


def project_fields(record: Mapping[str, Any], fields: Sequence[FieldPick]) -> dict[str, Any]:
    """A copy of `record` holding only the picked keys; no picks keeps everything."""
    if not fields:
        return dict(record)
    return _project_map(record, _tree(tuple(fields)))


@functools.lru_cache(maxsize=256)
def _tree(fields: tuple[FieldPick, ...]) -> _Node:
    root = _Node()
    for pick in fields:
        node = root
        for part in pick.path:
            if part == "*":
                node.wildcard = node.wildcard or _Node()
                node = node.wildcard
            else:
                node = node.children.setdefault(part, _Node())
        node.whole = True
        node.excerpt = node.excerpt or pick.excerpt
    return root


def _project_map(data: Mapping[str, Any], node: _Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        child = node.children.get(key) or node.wildcard
        if child is not None:
            out[key] = _project(value, child)
    return out


def _project(value: Any, node: _Node) -> Any:
    if node.whole:
        return node.excerpt.apply(value) if node.excerpt else value
    if isinstance(value, Mapping):
        return _project_map(value, node)
    if isinstance(value, list) and value and isinstance(value[0], Mapping):
        return [_project_map(v, node) if isinstance(v, Mapping) else v for v in value]
    return value
