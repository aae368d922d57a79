"""How a field path becomes something the engine can read: the resolver protocol.

The engine knows only `FieldResolver` and `ResolvedPath`. A resolved path is a
chain of stages from a record to the compared value. A `many` stage fans out
(a list field, a multiple reference): its elements are compared with
PocketBase's all/any rules. Two fan-outs with the same `key` are the same join
in PocketBase's SQL, so conditions on them correlate to one element; a fan-out
with key None is never shared.

`EntityResolver` is the mapping-aware implementation, built on
`runtime.mapping.Entity`; related records come from a lookup callable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from runtime.mapping import Entity, Field, FieldType
from runtime.protocol import ProtocolError

from ._ast import Path
from ._values import Kind

Lookup = Callable[[str, str], Mapping[str, Any] | None]
"""`lookup(entity_name, id)`: the related protocol record, or None when there is none."""

MAX_RELATION_HOPS = 6


@dataclass(frozen=True, slots=True)
class Stage:
    """One step from a value to the next; `fetch` is never called with None."""

    fetch: Callable[[Any], Any]
    many: bool = False
    key: str | None = None


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    text: str
    kind: Kind
    declared: str
    stages: tuple[Stage, ...]

    @property
    def multi(self) -> bool:
        return any(s.many for s in self.stages)


class FieldResolver(Protocol):
    """Resolves a path, or raises `ProtocolError("invalid_filter", …)` naming what is wrong."""

    def resolve(self, path: Path) -> ResolvedPath: ...


_TEXT_TYPES = ("string", "enum", "ref")
_LIST_TYPES = ("list<enum>", "list<ref>")
_KINDS: dict[str, Kind] = {
    "string": "text", "enum": "text", "ref": "text", "list<enum>": "text", "list<ref>": "text",
    "number": "number", "boolean": "boolean", "datetime": "datetime", "json": "json",
}  # fmt: skip


class EntityResolver:
    """Paths over one entity of a mapping, following refs into `entities` via `lookup`."""

    def __init__(
        self,
        entity: Entity,
        entities: Mapping[str, Entity] | None = None,
        lookup: Lookup | None = None,
    ) -> None:
        self.entity = entity
        self.entities = entities or {entity.name: entity}
        self.lookup = lookup

    def resolve(self, path: Path) -> ResolvedPath:
        entity, parts = self.entity, path.parts
        stages: list[Stage] = []
        for i, name in enumerate(parts):
            last = i == len(parts) - 1
            field = _declared(entity, name, path)
            if last:
                return _final(field, path, stages, str(path))
            if field.type == "json":
                if path.modifier:
                    raise _fail(f"modifiers do not apply to a json path ({path})")
                steps = [Stage(_json_step(p)) for p in parts[i + 1 :]]
                return ResolvedPath(str(path), "json", "json", (*stages, _plain(name), *steps))
            if not field.is_ref:
                raise _fail(
                    f"{'.'.join(parts[: i + 1])!r} is a {field.type} field; "
                    f"only ref and json fields can be followed with '.' (in {str(path)!r})"
                )
            if i >= MAX_RELATION_HOPS:
                raise _fail(f"{str(path)!r} follows more than {MAX_RELATION_HOPS} references")
            if field.type == "ref" and parts[i + 1 :] == ("id",):
                # a single ref's `.id` is the stored id itself: no join, never NULL
                return _final(field, Path(parts[: i + 1], path.modifier), stages, str(path))
            target = self._target(field, path)
            key = ".".join(parts[: i + 1])
            if field.type == "list<ref>":
                stages.append(Stage(_list_of(name), many=True, key=key))
                if self.lookup is None and parts[i + 1 :] == ("id",) and not path.modifier:
                    # without related records the stored ids are the best answer
                    return ResolvedPath(str(path), "text", "string", tuple(stages))
            else:
                stages.append(Stage(_text_of(name)))
            stages.append(Stage(self._fetcher(target, path)))
            entity = target
        raise _fail("an empty field path")  # the grammar never produces one

    def _target(self, field: Field, path: Path) -> Entity:
        target = self.entities.get(field.entity or "")
        if target is None:
            raise _fail(f"{field.name!r} refers to {field.entity!r}, which is not mapped")
        return target

    def _fetcher(self, target: Entity, path: Path) -> Callable[[Any], Any]:
        lookup = self.lookup
        if lookup is None:
            raise _fail(
                f"{str(path)!r} needs related {target.name} records, which are not available"
            )
        name = target.name
        return lambda ref: lookup(name, ref) if ref != "" else None


_ID = Field(name="id", type=FieldType.STRING, source=("id",))


def _declared(entity: Entity, name: str, path: Path) -> Field:
    if name == "id":
        return _ID
    field = entity.fields.get(name)
    if field is not None and not field.write_only:
        return field
    where = f" (in {str(path)!r})" if len(path.parts) > 1 else ""
    hint = " Back-relations (x_via_y) are not supported." if "_via_" in name else ""
    declared = ", ".join(
        ["id", *(n for n, f in entity.fields.items() if n != "id" and not f.write_only)]
    )
    raise _fail(f"unknown field {name!r} on {entity.name}{where}; declared: {declared}.{hint}")


def _final(field: Field, path: Path, stages: list[Stage], text: str) -> ResolvedPath:
    name, kind, mod = path.parts[-1], _kind(field), path.modifier
    key = ".".join(path.parts)
    if field.type == "binary":
        raise _fail(f"{key!r} is a binary field, which cannot be filtered or sorted")
    if mod is None:
        if field.type in _LIST_TYPES:
            last = Stage(_list_of(name), many=True)  # each comparison gets its own elements
        else:
            last = Stage(_text_of(name) if kind == "text" else _plain(name).fetch)
    elif mod == "lower" and kind == "text":
        many = field.type in _LIST_TYPES
        last = Stage(_lowered(name, many), many=many)
    elif mod == "each" and (field.type in _LIST_TYPES or field.type in ("enum", "ref")):
        last = Stage(_list_of(name), many=True, key=key)
    elif mod == "length" and (field.type in _LIST_TYPES or field.type in ("enum", "ref")):
        return ResolvedPath(text, "number", field.type, (*stages, Stage(_length(name))))
    else:
        needs = {"lower": "text", "each": "list, enum or ref", "length": "list, enum or ref"}[mod]
        raise _fail(f":{mod} needs a {needs} field; {key!r} is {field.type}")
    return ResolvedPath(text, kind, field.type, (*stages, last))


def _kind(field: Field) -> Kind:
    if field.type == "string" and field.day_key:
        return "day"
    return _KINDS.get(field.type, "json")


def _plain(name: str) -> Stage:
    return Stage(lambda record: record.get(name))


def _text_of(name: str) -> Callable[[Any], Any]:
    # a text field of an existing record is never NULL: blank reads as ""
    def fetch(record: Any) -> Any:
        value = record.get(name)
        return "" if value is None else value

    return fetch


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _list_of(name: str) -> Callable[[Any], list[Any]]:
    return lambda record: _as_list(record.get(name))


def _length(name: str) -> Callable[[Any], int]:
    return lambda record: len(_as_list(record.get(name)))


def _lowered(name: str, many: bool) -> Callable[[Any], Any]:
    if many:
        return lambda record: [ascii_lower(v) for v in _as_list(record.get(name))]
    return lambda record: ascii_lower(record.get(name) or "")


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(value: Any) -> Any:
    """SQLite's LOWER without ICU: ASCII letters only."""
    if not isinstance(value, str):
        return value
    return value.lower() if value.isascii() else value.translate(_ASCII_LOWER)


def _json_step(part: str) -> Callable[[Any], Any]:
    if part.isdigit():
        index = int(part)
        return lambda v: v[index] if isinstance(v, list) and index < len(v) else None
    return lambda v: v.get(part) if isinstance(v, dict) else None


def _fail(message: str) -> ProtocolError:
    return ProtocolError("invalid_filter", message)
