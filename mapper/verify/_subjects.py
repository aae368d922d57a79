"""How checks expand over a mapping: one subject per claim the mapping makes."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from runtime.mapping import Entity, Field, Mapping

from ._registry import Subject


def the_upstream(mapping: Mapping) -> Iterator[Subject]:
    yield Subject("upstream.auth", "the upstream answers a listing with the configured credentials")


def entities(
    what: str, suffix: str, *, when: Callable[[Entity], bool] | None = None,
    op: str | None = None,
) -> Callable[[Mapping], Iterator[Subject]]:  # fmt: skip
    """One subject per entity that makes the claim (`when`): a mapping that declares no
    create claims nothing about creates. `op` names the write the claim is about, which
    its refusal withholds."""

    def expand(mapping: Mapping) -> Iterator[Subject]:
        for name, entity in mapping.entities.items():
            if when is None or when(entity):
                yield Subject(f"entities.{name}.{suffix}", f"{name}: {what}", entity=name, op=op)

    return expand


def creates(entity: Entity) -> bool:
    return entity.write.create


def updates(entity: Entity) -> bool:
    return entity.write.update is not None


def deletes(entity: Entity) -> bool:
    return bool(entity.write.delete)


def writes(entity: Entity) -> bool:
    return creates(entity) or updates(entity)


def fields(
    what: str, suffix: str, keep: Callable[[Entity, Field], bool]
) -> Callable[[Mapping], Iterator[Subject]]:
    """One subject per field that `keep` selects; `what` may use {field}."""

    def expand(mapping: Mapping) -> Iterator[Subject]:
        for name, entity in mapping.entities.items():
            for field in entity.fields.values():
                if keep(entity, field):
                    yield Subject(
                        f"entities.{name}.fields.{field.name}.{suffix}",
                        f"{name}.{field.name}: " + what.format(field=field.name),
                        entity=name,
                        field=field.name,
                    )

    return expand


def each_filter(mapping: Mapping) -> Iterator[Subject]:
    for name, entity in mapping.entities.items():
        for field_name, ops in entity.filters.items():
            for op, spelled in ops.items():
                yield Subject(
                    f"entities.{name}.filter.{field_name}.{op}",
                    f"{name}: `{field_name} {op} v` is honoured by ?{spelled.param}=v",
                    entity=name,
                    field=field_name,
                    op=op,
                )


def each_sort_field(mapping: Mapping) -> Iterator[Subject]:
    for name, entity in mapping.entities.items():
        if entity.sort is None:
            continue
        for field_name in entity.sort.fields:
            yield Subject(
                f"entities.{name}.sort.{field_name}",
                f"{name}: ?{entity.sort.param}= orders by {field_name}, both ways",
                entity=name,
                field=field_name,
            )


def each_operation(mapping: Mapping) -> Iterator[Subject]:
    for op in mapping.operations:
        yield Subject(
            f"operations.{op.name}",
            f"operation {op.name} runs as declared",
            entity=op.entity,
            operation=op.name,
        )


def is_writable(entity: Entity, field: Field) -> bool:
    return not field.read_only and writes(entity)
