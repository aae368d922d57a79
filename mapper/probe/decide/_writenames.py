"""Write names of nested refs: read at ``severity.id``, written as ``severity_id``.

An upstream that renders a reference as a nested object (``{"id": 3, "name": …}``)
usually takes the bare id on writes under another key. When a source declares
that key (a spec's create body property ``severity_id`` or ``severityId`` that
is never in the answers, so it came out as a write-only field of its own), the
two are one field: read from the nested id, written to the declared key.
"""

from __future__ import annotations

from .._draft import EntityDraft, Ev, FieldDraft

_ID_TYPES = ("number", "string", "ref")
_ID_LISTS = ("json", "list<ref>")


def _fits(ref: FieldDraft, other: FieldDraft) -> bool:
    kinds = _ID_LISTS if ref.type == "list<ref>" else _ID_TYPES
    if not other.write_only or other.read_only or other.type not in kinds:
        return False
    return not other.type.endswith("ref") or other.entity == ref.entity


def pair_write_names(entity: EntityDraft) -> list[str]:
    """Fold each declared write key into its nested ref; the names of the refs folded."""
    folded: list[str] = []
    by_source = {f.source: name for name, f in entity.fields.items()}
    for draft in list(entity.fields.values()):
        base = draft.nested_base()
        if base is None:
            continue
        for key in draft.write_keys(base):
            name = by_source.get(key)
            other = entity.fields.get(name) if name is not None else None
            if other is None or not _fits(draft, other):
                continue
            del entity.fields[other.name]
            draft.write_source = key
            # The nested object is the server's rendering (a spec may call it readOnly);
            # the field itself is written, through its key.
            draft.read_only = False
            draft.required = draft.required or other.required
            declared = next((e.source for e in other.evidence), "sample")
            draft.evidence.append(Ev(declared, f"writes take the id as {key!r}"))
            folded.append(draft.name)
            break
    return folded
