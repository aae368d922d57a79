"""What a partial stamp withholds, and the mapping that is served without it.

A verify run that refuses some claims, or cannot exercise them, still proves the
rest. Each refused or unproven claim is recorded in the stamp with its scope, and
the serve gate serves only what was proven (what was only unproven is served too
with `--allow-unverified`; what was disproven never is):

    reads      the entity is not served at all (describe leaves it out, its
               routes answer like an unknown collection), nor is any entity or
               operation that refers to it: a ref to a record that cannot be
               read back cannot be guarded, expanded or labelled
    writes     the entity is read; its creates, updates and deletes answer 403
               `writes_not_verified` naming the refused claims; a refusal with
               an `op` (create, update, delete) withholds only that write, and
               one with a `field` too only that write of that field
    operation  the operation answers 403 `writes_not_verified` naming them; so does
               an operation that runs through a withheld create, update or delete
    filter     that operator is no longer pushed down: it is evaluated here
    sort       that field is no longer sorted upstream: it is sorted here
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass, field
from typing import Literal

from ._model import Entity, Mapping, Operation, frozen_map

Scope = Literal["reads", "writes", "operation", "filter", "sort"]
SCOPES: tuple[Scope, ...] = ("reads", "writes", "operation", "filter", "sort")


@dataclass(frozen=True, slots=True)
class Refusal:
    """One claim the verifier refused, and what it withholds from serving."""

    claim: str
    check: str
    scope: Scope
    entity: str | None = None
    field: str | None = None
    op: str | None = None
    operation: str | None = None
    reason: str | None = None
    # Not disproven: the run could not exercise it. Served only with --allow-unverified.
    unproven: bool = False


Claims = AbcMapping[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Withheld:
    """Per entity or operation, the refused claims (or why it follows one) that withhold it."""

    reads: Claims = field(default_factory=frozen_map)
    writes: Claims = field(default_factory=frozen_map)
    operations: Claims = field(default_factory=frozen_map)
    pushdowns: Claims = field(default_factory=frozen_map)
    # per entity, the refusals of one write (`op`), or of one field in one write
    narrowed: AbcMapping[str, tuple[Refusal, ...]] = field(default_factory=frozen_map)

    def __bool__(self) -> bool:
        return bool(self.reads or self.writes or self.operations or self.pushdowns or self.narrowed)

    def write_refusals(self, entity: str, op: str, fields: Iterable[str] = ()) -> tuple[str, ...]:
        """The refused claims that withhold this write of `entity`, with these fields."""
        if entity not in self.writes and entity not in self.narrowed:
            return ()  # nothing of this entity withheld: every write asks this first
        whole = self.writes.get(entity, ())
        named = set(fields)
        narrow = tuple(
            f"{r.claim}" + (f" ({r.field})" if r.field else "")
            for r in self.narrowed.get(entity, ())
            if r.op == op and (r.field is None or r.field in named)
        )
        return (*whole, *dict.fromkeys(narrow))

    def describe(self) -> list[str]:
        """One line per withheld part, for a start-up note or a summary."""
        lines = [f"entity {n}: not served ({'; '.join(c)})" for n, c in self.reads.items()]
        lines += [f"entity {n}: writes refused ({'; '.join(c)})" for n, c in self.writes.items()]
        for name, refusals in self.narrowed.items():
            for r in refusals:
                what = f"{r.op} of {r.field}" if r.field else f"{r.op}s"
                lines.append(f"entity {name}: {what} refused ({r.claim})")
        lines += [f"operation {n}: refused ({'; '.join(c)})" for n, c in self.operations.items()]
        lines += [
            f"entity {n}: evaluated here, not upstream ({'; '.join(c)})"
            for n, c in self.pushdowns.items()
        ]
        return lines


def _group(pairs: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    grouped: dict[str, list[str]] = {}
    for name, claim in pairs:
        if claim not in grouped.setdefault(name, []):
            grouped[name].append(claim)
    return {name: tuple(claims) for name, claims in grouped.items()}


def _refers_to(entity: Entity, names: set[str]) -> str | None:
    return next((f.entity for f in entity.fields.values() if f.is_ref and f.entity in names), None)


def _unreadable(
    mapping: Mapping, refused: AbcMapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """Entities withheld from reads, and those that refer to them, transitively."""
    out = {name: claims for name, claims in refused.items() if name in mapping.entities}
    grew = True
    while grew:
        grew = False
        for name, entity in mapping.entities.items():
            target = None if name in out else _refers_to(entity, set(out))
            if target is not None:
                out[name] = (f"refers to {target}, which is not served",)
                grew = True
    return out


def _operation_blocked(op: Operation, unreadable: set[str]) -> str | None:
    touched = {op.entity, op.crud.entity if op.crud else None}
    touched |= {p.entity for p in op.params.values() if p.is_ref}
    hit = sorted(name for name in touched if name in unreadable)
    return f"works on {hit[0]}, which is not served" if hit else None


def _crud_withheld(
    op: Operation, writes: AbcMapping[str, tuple[str, ...]],
    narrowed: AbcMapping[str, tuple[Refusal, ...]],
) -> str | None:  # fmt: skip
    """Why an operation that runs through an entity's write is withheld with that write."""
    crud = op.crud
    if crud is None or crud.action not in ("create", "update", "delete"):
        return None
    whole = crud.entity in writes
    if whole or any(r.op == crud.action and r.field is None for r in narrowed.get(crud.entity, ())):
        return f"runs through the {crud.action} of {crud.entity}, which is withheld"
    return None


def _without_pushdowns(entity: Entity, refusals: list[Refusal]) -> Entity:
    filters = {
        name: frozen_map(
            {
                op: spelled
                for op, spelled in ops.items()
                if not any(r.scope == "filter" and r.field == name and r.op == op for r in refusals)
            }
        )
        for name, ops in entity.filters.items()
    }
    sort = entity.sort
    if sort is not None:
        unsorted = {r.field for r in refusals if r.scope == "sort"}
        kept = tuple(f for f in sort.fields if f not in unsorted)
        sort = dataclasses.replace(sort, fields=kept) if kept else None
    return dataclasses.replace(
        entity, filters=frozen_map({n: ops for n, ops in filters.items() if ops}), sort=sort
    )


def withhold(mapping: Mapping, refusals: Iterable[Refusal]) -> tuple[Mapping, Withheld]:
    """The mapping to serve once every refused claim is withheld, and what was withheld."""
    refused = list(refusals)
    reads = _unreadable(
        mapping, _group((r.entity, r.claim) for r in refused if r.scope == "reads" and r.entity)
    )
    gone = set(reads)
    kept = set(mapping.entities) - gone
    writable = [r for r in refused if r.scope == "writes" and r.entity in kept]
    writes = _group((str(r.entity), r.claim) for r in writable if r.op is None)
    narrowed: dict[str, tuple[Refusal, ...]] = {}
    for r in writable:
        if r.op is not None and r.entity not in writes:
            narrowed[str(r.entity)] = (*narrowed.get(str(r.entity), ()), r)
    operations = _group(
        (r.operation, r.claim) for r in refused if r.scope == "operation" and r.operation
    )
    served_ops: list[Operation] = []
    dropped: dict[str, tuple[str, ...]] = {}
    for op in mapping.operations:
        blocked = _operation_blocked(op, gone)
        if blocked is None:
            served_ops.append(op)
            through = _crud_withheld(op, writes, narrowed)
            if through is not None and op.name not in operations:
                operations[op.name] = (through,)
        else:
            dropped[op.name] = (blocked,)
    pushdowns = _group(
        (r.entity, r.claim)
        for r in refused
        if r.scope in ("filter", "sort")
        and r.entity is not None
        and r.entity in mapping.entities
        and r.entity not in gone
    )
    entities = {
        name: _without_pushdowns(entity, [r for r in refused if r.entity == name])
        if name in pushdowns
        else entity
        for name, entity in mapping.entities.items()
        if name not in gone
    }
    served = dataclasses.replace(
        mapping, entities=frozen_map(entities), operations=tuple(served_ops)
    )
    known = {op.name for op in mapping.operations}
    withheld = Withheld(
        reads=frozen_map(reads),
        writes=frozen_map(writes),
        operations=frozen_map(
            {**{n: c for n, c in operations.items() if n in known and n not in dropped}, **dropped}
        ),
        pushdowns=frozen_map(pushdowns),
        narrowed=frozen_map(narrowed),
    )
    return served, withheld
