"""The reference graph: who must be created first, and which entities are independent."""

from __future__ import annotations

from collections.abc import Iterable

from runtime.mapping import Entity, Mapping


def parents(entity: Entity) -> list[str]:
    """Entities this one refers to (itself excluded), in field order."""
    out: list[str] = []
    for field in entity.fields.values():
        target = field.entity
        if field.is_ref and target and target != entity.name and target not in out:
            out.append(target)
    return out


def parents_first(mapping: Mapping, names: Iterable[str] | None = None) -> list[str]:
    """A creation order; a reference cycle is broken at declaration order."""
    wanted = (
        list(mapping.entities)
        if names is None
        else [n for n in mapping.entities if n in set(names)]
    )
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in order or name in visiting:
            return
        visiting.add(name)
        for parent in parents(mapping.entities[name]):
            if parent in wanted:
                visit(parent)
        visiting.discard(name)
        order.append(name)

    for name in wanted:
        visit(name)
    return order


def components(mapping: Mapping, names: Iterable[str]) -> list[list[str]]:
    """Groups of entities linked by references, each in creation order.

    Entities of different groups never see each other's writes, so the groups
    can be verified side by side.
    """
    links: dict[str, set[str]] = {name: set() for name in mapping.entities}
    for name, entity in mapping.entities.items():
        for parent in parents(entity):
            if parent in links:
                links[name].add(parent)
                links[parent].add(name)
    chosen = set(names)
    seen: set[str] = set()
    groups: list[list[str]] = []
    for name in parents_first(mapping):
        if name in seen:
            continue
        reach, todo = {name}, [name]
        while todo:
            for other in links[todo.pop()] - reach:
                reach.add(other)
                todo.append(other)
        seen |= reach
        group = [n for n in parents_first(mapping) if n in reach and n in chosen]
        if group:
            groups.append(group)
    return groups
