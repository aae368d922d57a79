"""A small, deterministic YAML writer for mapping documents.

Keys keep the order the document was built in; a mapping or list that fits on
one line (100 columns) is written in flow style, as hand-written mappings are;
a string is written plain only when YAML reads it back as the same string.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import yaml

WIDTH = 100
_PLAIN = re.compile(r"^[A-Za-z0-9_/][A-Za-z0-9_ ./()<>'-]*$")
_STR = "tag:yaml.org,2002:str"


def _implicit_tag(text: str) -> str:
    """The tag YAML gives an unquoted scalar, as `yaml.resolver.Resolver` decides it."""
    resolvers = yaml.SafeLoader.yaml_implicit_resolvers
    for tag, pattern in [*resolvers.get(text[:1], []), *resolvers.get(None, [])]:
        if pattern.match(text):
            return str(tag)
    return _STR


@lru_cache(maxsize=4096)
def _plain(text: str) -> bool:
    """Safe characters only, and YAML's implicit typing keeps it a string (not
    ``yes``, ``1.0``, ``2026-01-01``, ``null``, ``=``)."""
    if not _PLAIN.match(text) or text.endswith(" ") or "  " in text:
        return False
    return _implicit_tag(text) == _STR


def scalar(value: Any) -> str:
    if type(value) is str:
        return _text(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return _text(str(value))


@lru_cache(maxsize=16384)
def _text(text: str) -> str:
    # A mapping repeats its words (types, evidence, keys) thousands of times.
    return text if _plain(text) else json.dumps(text, ensure_ascii=False)


_CONTAINERS = (dict, list, tuple)


def flow(value: Any, budget: int = 1 << 30) -> str | None:
    """The one-line form, or None as soon as it would exceed `budget` characters."""
    if isinstance(value, dict):
        parts: list[str] = []
        used = 2
        for key, item in value.items():
            if isinstance(item, _CONTAINERS):
                inner = flow(item, budget - used)
                if inner is None:
                    return None
            else:
                inner = scalar(item)
                if len(inner) > budget - used:
                    return None
            parts.append(f"{scalar(key)}: {inner}")
            used += len(parts[-1]) + 2
            if used > budget:
                return None
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list | tuple):
        items: list[str] = []
        used = 2
        for item in value:
            if isinstance(item, _CONTAINERS):
                inner = flow(item, budget - used)
                if inner is None:
                    return None
            else:
                inner = scalar(item)
                if len(inner) > budget - used:
                    return None
            items.append(inner)
            used += len(inner) + 2
            if used > budget:
                return None
        return "[" + ", ".join(items) + "]"
    text = scalar(value)
    return text if len(text) <= budget else None


def _block(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            head = f"{pad}{scalar(key)}:"
            if not isinstance(item, _CONTAINERS):
                lines.append(f"{head} {scalar(item)}")
                continue
            if not item:
                lines.append(f"{head} {flow(item)}")
                continue
            inline = flow(item, WIDTH - len(head) - 1)
            if inline is not None:
                lines.append(f"{head} {inline}")
            else:
                lines.append(head)
                lines.extend(_block(item, indent + 2))
        return lines
    for item in value:
        if not isinstance(item, _CONTAINERS):
            lines.append(f"{pad}- {scalar(item)}")
            continue
        inline = flow(item, WIDTH - len(pad) - 2)
        if inline is not None:
            lines.append(f"{pad}- {inline}")
            continue
        inner = _block(item, indent + 2)
        lines.append(f"{pad}- {inner[0].lstrip()}")
        lines.extend(inner[1:])
    return lines


def dump(doc: dict[str, Any], header: list[str] | None = None) -> str:
    lines = [f"# {line}" if line else "#" for line in header or []]
    lines.extend(_block(doc, 0))
    return "\n".join(lines) + "\n"
