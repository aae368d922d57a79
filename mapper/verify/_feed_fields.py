"""The fields the change feed may read newest first by, before any proof: the datetime
fields the upstream sorts by. A leaf module (it registers no check), so `a2map lint`
can name them without changing the order checks register in."""

from __future__ import annotations

from runtime.mapping import Entity, FieldType

# Names that rank first among the candidates; the proof, not the name, decides.
MODIFIED_NAMES = ("updated", "modified", "updated_at", "updatedAt", "modified_at", "modifiedAt")


def candidates(entity: Entity) -> list[str]:
    """The datetime fields the upstream sorts by, the usual modified names first."""
    sortable = entity.sort.fields if entity.sort is not None else ()
    found = [n for n in sortable if (f := entity.fields.get(n)) and f.type == FieldType.DATETIME]
    return sorted(found, key=lambda n: MODIFIED_NAMES.index(n) if n in MODIFIED_NAMES else 99)
