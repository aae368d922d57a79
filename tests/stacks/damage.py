"""Ways to damage a verified mapping that `verify --write-corrected` must undo.

Each damage is chosen from what the mapping and its first verify report show (a
field whose claims passed there), never from the stack's name: a damage applies
where its kind of claim was proven, and the checklist takes the first three kinds
that apply to a stack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Doc = dict[str, Any]
# claim -> outcome, from the undamaged run's report
Outcomes = dict[str, str]
# (entity, field) already damaged: one damage per field
Taken = set[tuple[str, str]]
BOGUS_PARAM = "a2v_no_such_param"


@dataclass(frozen=True)
class Damage:
    kind: str
    entity: str
    field: str
    # the claim the damaged run must refuse
    claim: str


def _fields(doc: Doc, taken: Taken) -> Iterator[tuple[str, str, Doc]]:
    for name, entity in doc["entities"].items():
        for field, spec in entity["fields"].items():
            if (name, field) not in taken:
                yield name, field, spec


def _passed(outcomes: Outcomes, claim: str) -> bool:
    return outcomes.get(claim) == "passed"


def _plain(spec: Doc) -> bool:
    """A field an agent writes as it is: no key that changes how it is written."""
    special = ("readOnly", "writeOnly", "createOnly", "updateOnly", "serverSets", "codec",
               "writeSource", "normalize")  # fmt: skip
    scalar = spec.get("type") in ("string", "text", "number", "integer", "boolean")
    return scalar and not any(spec.get(k) for k in special)


def drop_required(doc: Doc, outcomes: Outcomes, taken: Taken) -> Damage | None:
    """A field the upstream requires, declared optional: a minimal create is refused."""
    for name, field, spec in _fields(doc, taken):
        minimal = f"entities.{name}.write.create.minimal"
        claim = f"entities.{name}.fields.{field}.required"
        label = doc["entities"][name].get("label")
        # Not the text field a run marks its records with (the label, else a required
        # text field): every create sends it, a minimal one too.
        marks = field == label or (spec.get("type") == "string" and label is None)
        if marks:
            continue
        if spec.get("required") and _passed(outcomes, claim) and _passed(outcomes, minimal):
            del spec["required"]
            return Damage("drop-required", name, field, minimal)
    return None


def _set_on_optional(
    doc: Doc, outcomes: Outcomes, taken: Taken, *, kind: str, proven: str, key: str
) -> Damage | None:
    """`key: true` on the first optional plain field of an entity whose write claim
    `proven` passed; the damaged run must refuse that field's `key` claim."""
    for name, field, spec in _fields(doc, taken):
        if (
            not spec.get("required")
            and _plain(spec)
            and _passed(outcomes, f"entities.{name}.{proven}")
        ):
            spec[key] = True
            return Damage(kind, name, field, f"entities.{name}.fields.{field}.{key}")
    return None


def add_required(doc: Doc, outcomes: Outcomes, taken: Taken) -> Damage | None:
    """An optional field declared required: the upstream creates without it."""
    return _set_on_optional(
        doc, outcomes, taken, kind="add-required", proven="write.create.minimal", key="required"
    )


def mark_read_only(doc: Doc, outcomes: Outcomes, taken: Taken) -> Damage | None:
    """An optional field an update stores, declared read-only."""
    return _set_on_optional(
        doc, outcomes, taken, kind="mark-read-only", proven="write.update", key="readOnly"
    )


def _param(spelled: Any) -> str:
    return str(spelled.get("param") if isinstance(spelled, dict) else spelled)


def ignored_filter(doc: Doc, outcomes: Outcomes, taken: Taken) -> Damage | None:
    """A proven `=` filter spelled with a parameter the upstream does not know (and no
    spec saying it should: with one, it would be not proven, not refused)."""
    for name, entity in doc["entities"].items():
        filters = entity.get("filter") or {}
        params = [_param(spelled) for ops in filters.values() for spelled in ops.values()]
        for field, ops in filters.items():
            claim = f"entities.{name}.filter.{field}.="
            # One parameter for every field is a filter language (PocketBase's
            # `filter=`), not a parameter per field that could be misspelled.
            native = "=" in ops and params.count(_param(ops["="])) > len(ops)
            fresh = (name, field) not in taken and not native
            if fresh and "=" in ops and _passed(outcomes, claim):
                ops["="] = BOGUS_PARAM
                return Damage("ignored-filter", name, field, claim)
    return None


Kind = Callable[[Doc, Outcomes, Taken], Damage | None]


def max_below_stored(stored: Mapping[str, list[Doc]]) -> Kind:
    """A text field's `max` one below the longest value the upstream stores in it."""

    def kind(doc: Doc, outcomes: Outcomes, taken: Taken) -> Damage | None:
        for name, field, spec in _fields(doc, taken):
            claim = f"entities.{name}.fields.{field}.type"
            source = spec.get("source", field)
            plain = not any(spec.get(k) for k in ("format", "values", "required", "codec"))
            label = field == doc["entities"][name].get("label")
            if spec.get("type") != "string" or not plain or label or not isinstance(source, str):
                continue
            longest = max(
                (len(r[source]) for r in stored.get(name, []) if isinstance(r.get(source), str)),
                default=0,
            )
            if longest >= 4 and _passed(outcomes, claim):
                spec["max"] = longest - 1
                return Damage("max-below-stored", name, field, claim)
        return None

    return kind


def narrowed_enum(stored: Mapping[str, list[Doc]]) -> Kind:
    """An enum's `values` without one that the upstream stores."""

    def kind(doc: Doc, outcomes: Outcomes, taken: Taken) -> Damage | None:
        for name, field, spec in _fields(doc, taken):
            claim = f"entities.{name}.fields.{field}.type"
            source = spec.get("source", field)
            values = list(spec.get("values") or [])
            if spec.get("type") != "enum" or not isinstance(source, str) or len(values) < 2:
                continue
            held = {r.get(source) for r in stored.get(name, [])} & set(values)
            if held and _passed(outcomes, claim):
                spec["values"] = [v for v in values if v != sorted(held)[0]]
                return Damage("narrowed-enum", name, field, claim)
        return None

    return kind


KINDS: tuple[Kind, ...] = (
    drop_required, add_required, mark_read_only, ignored_filter,
)  # fmt: skip


def damage(
    doc: Doc, outcomes: Outcomes, stored: Mapping[str, list[Doc]], count: int = 3
) -> list[Damage]:
    """Up to `count` damages of different kinds, on different fields, applied to `doc`
    (`stored`: the upstream's own records per entity, as it lists them)."""
    done: list[Damage] = []
    for kind in (*KINDS, narrowed_enum(stored), max_below_stored(stored)):
        if len(done) == count:
            break
        found = kind(doc, outcomes, {(d.entity, d.field) for d in done})
        if found is not None:
            done.append(found)
    return done
