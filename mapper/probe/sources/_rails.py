"""Rails conventions, for an API whose answers carry Rails' ``X-Runtime`` header.

Rails publishes no spec and answers no ``OPTIONS``, so what reads cannot show is
proposed from its conventions, each marked as such for the verifier to prove:

- ``resources`` routes: POST on the collection, PATCH and DELETE on ``/{id}``;
- strong parameters: write bodies wrapped under the model's key (``{"card": …}``,
  the singular of the collection), which ``wrap_parameters`` would also accept flat;
- ``belongs_to`` columns (``list_id``, confirmed as refs by a lookup) are required
  unless declared optional, and the label column (``title``, ``name``) is the one a
  presence validation usually guards: both proposed as required when no sampled
  record lacks them;
- an association rendered nested (``as_json(include: {severity: …})``, a ref read
  from ``severity.id``) is written through its column, ``severity_id``, which strong
  parameters permit: proposed as the field's ``writeSource``, and required as a
  ``belongs_to`` is; a ``has_many`` rendered as a list of objects (``labels``) is
  written through ``label_ids``;
- ``created_at``/``updated_at`` are Rails' own timestamps (already read-only by name).

What a delete does to referring records (``dependent:``) shows in no answer: it is
left to ``a2map verify``, which observes it on records of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._draft import EntityDraft, Ev, FieldDraft
from .._naming import segments, singular
from ..render import label_of

NO_WRITES = Ev("sample", "no spec and no Allow header: writes are not proposed")


def is_rails(errors: str) -> bool:
    return errors == "rails"


def _present(records: Sequence[Mapping[str, Any]], wire: str) -> bool:
    values = [r.get(wire) for r in records]
    return bool(values) and all(v is not None and v != "" for v in values)


def _nested_columns(entity: EntityDraft) -> list[str]:
    """Nested associations get their column as write name; the fields given one."""
    written = []
    for draft in entity.fields.values():
        base = draft.nested_base()
        if base is None:
            continue
        draft.write_source = draft.write_keys(base)[0]
        what = "writer" if draft.type == "list<ref>" else "column"  # has_many: `label_ids=`
        draft.evidence.append(Ev("name", f"a Rails association rendered nested; its {what} "
                                 f"{draft.write_source!r} takes writes"))  # fmt: skip
        draft.notes.append(f"written as {draft.write_source} by Rails conventions; "
                           "a2map verify proves it")  # fmt: skip
        written.append(draft.name)
    return written


def _require(draft: FieldDraft, ev: Ev, why: str) -> None:
    draft.required = True
    draft.evidence.append(ev)
    draft.notes.append(f"required by its name only ({why}); a2map verify proves it")


def rails_conventions(entity: EntityDraft, records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Writes, their wrapping key and required candidates; notes on each."""
    # The collection's own name: `/cards.json` and `/cards?format=json` are Rails' formats.
    parts = segments(entity.path.split("?", 1)[0])
    wrap = singular(parts[-1].removesuffix(".json")) if parts else entity.name
    entity.write = {"create": True, "update": "PATCH", "delete": True, "wrap": wrap}
    detail = (
        f"Rails resource routes (X-Runtime): POST, PATCH and DELETE, bodies under {wrap!r}; "
        "for a2map verify to prove"
    )
    entity.evidence = [e for e in entity.evidence if e != NO_WRITES] + [Ev("sample", detail)]
    required = []
    written = _nested_columns(entity)
    for draft in entity.fields.values():
        column = draft.write_source if draft.name in written else draft.source
        is_fk = draft.type == "ref" and (column or "").endswith("_id")
        looked_up = any(e.source == "lookup" for e in draft.evidence)
        if is_fk and looked_up and _present(records, draft.source.split(".")[0]):
            ev = Ev("name", "a Rails belongs_to column, required unless declared optional")
            _require(draft, ev, "Rails belongs_to")
            required.append(draft.name)
    label = label_of(entity.fields)
    if label is not None and not entity.fields[label].required:
        draft = entity.fields[label]
        if draft.type == "string" and _present(records, draft.source):
            ev = Ev("sample", "never empty in the samples")
            _require(draft, ev, "the label, never empty in the samples")
            required.append(draft.name)
    notes = [f"write: POST, PATCH, DELETE wrapped under {wrap!r} (Rails conventions)"]
    notes.extend(f"fields.{n}.writeSource: {entity.fields[n].write_source} (Rails conventions;"
                 " a candidate)" for n in written)  # fmt: skip
    if required:
        notes.append(f"required: {', '.join(required)} (Rails conventions; candidates)")
    notes.append("upstreamOnDelete: left to a2map verify (Rails dependent: shows in no answer)")
    return notes
