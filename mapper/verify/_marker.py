"""The run marker: what every record a verification run creates carries, and where.

A leaf module (it imports nothing of this package) because the subjects, the value
synthesis, the context and the cleanup ledger all need it.
"""

from __future__ import annotations

from runtime.mapping import Entity, Field
from runtime.protocol import VERIFY_MARK

TAG_PREFIX = VERIFY_MARK


def tag_field(entity: Entity) -> Field | None:
    """The string field that carries the run marker: the label when it can, else any.

    Never an open enum's field (`candidates`): the upstream may refuse free text there.
    """
    label = entity.fields.get(entity.label) if entity.label else None
    candidates = [label] if label is not None else []
    candidates += [f for f in entity.fields.values() if f.required] + list(entity.fields.values())
    for field in candidates:
        if (
            field.type == "string"
            and not field.read_only
            and not field.write_only
            and not field.update_only
            and not field.day_key
            and not field.candidates
            and (field.max is None or field.max >= len(TAG_PREFIX) + 16)
        ):
            return field
    return None
