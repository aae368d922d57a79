"""Distinct entity names for collections whose paths end alike.

``/v1/accounts`` and ``/v1/financial_connections/accounts`` both serve
``accounts``: the shortest path alone keeps the plain name, the others are
qualified by the segments before it (``financial_connections_accounts``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._naming import GENERIC_SEGMENTS, entity_name, identifier, is_placeholder, segments


def _literal(path: str) -> list[str]:
    literal = [s for s in segments(path) if not is_placeholder(s)]
    while len(literal) > 1 and literal[-1].lower() in GENERIC_SEGMENTS:
        literal.pop()
    return literal


def _qualified(path: str, depth: int) -> str:
    literal = _literal(path)
    return identifier("_".join(literal[max(0, len(literal) - 1 - depth) :])).lower()


def distinct_names(paths: Sequence[str]) -> dict[str, str]:
    """path -> entity name, the same for every probe of the same paths."""
    plain = {p: entity_name(p) or "_" for p in paths}
    names: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(plain[path], []).append(path)
    for name, group in groups.items():
        if len(group) == 1:
            names[group[0]] = name
            continue
        shortest = min(len(_literal(p)) for p in group)
        first = [p for p in group if len(_literal(p)) == shortest]
        if len(first) == 1:
            names[first[0]] = name
    taken = set(names.values()) | set(plain.values())
    for path in paths:
        if path in names:
            continue
        depth, candidate = 1, _qualified(path, 1)
        while candidate in taken and depth < len(_literal(path)):
            depth += 1
            candidate = _qualified(path, depth)
        base, n = candidate, 2
        while candidate in taken:
            candidate, n = f"{base}_{n}", n + 1
        names[path] = candidate
        taken.add(candidate)
    return names
