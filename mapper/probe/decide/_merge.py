"""Claims from every source -> one field decision with evidence, confidence and notes.

Precedence: the spec (the API's published contract), then ``OPTIONS`` (the
serializer itself), then samples. Samples refine what a declaration leaves open
(a plain string that is always a datetime or a day key; a string with few
values becomes an enum *candidate*), a lookup turns an id-valued field into a
ref, and every disagreement is written down with the side that won.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._draft import SPEC_SOURCES, Claim, Ev, FieldDraft
from ..sources import NOT_CREATED, NOT_SENT, NOT_UPDATED
from ._codecs import choose as choose_codec
from ._refs import RefDecision

SERVER_MANAGED = frozenset(
    {"created", "created_at", "createdAt", "updated", "updated_at", "updatedAt", "modified",
     "modified_at", "modifiedAt", "inserted_at", "date_joined", "last_modified"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class FieldInput:
    name: str
    source: str
    spec: Claim | None = None
    options: Claim | None = None
    sample: Claim | None = None
    sampled: bool = False  # the entity has samples at all
    present: bool = False  # the field appears in some sample
    ref: RefDecision | None = None


def _label(claim: Claim) -> str:
    if claim.type is None:
        return "a relation" if claim.related else "nothing"
    if claim.day_key:
        return "a YYYY-MM-DD day"
    if claim.type in ("enum", "list<enum>"):
        return f"{claim.type} of {len(claim.values)} values"
    return claim.type


def _compatible(declared: Claim, sample: Claim) -> bool:
    if declared.type in ("enum", "list<enum>") and sample.values:
        return set(sample.values) <= set(declared.values)
    if declared.type == sample.type and declared.day_key == sample.day_key:
        return True
    if declared.type == "number" and sample.wire == "numeric":
        return True  # decimals travel as text (DRF's COERCE_DECIMAL_TO_STRING)
    if declared.type == "string" and not declared.day_key:
        return sample.type in ("string", "datetime", "enum")
    if declared.type == "enum":
        return sample.type in ("string", "enum") and set(sample.values) <= set(declared.values)
    if declared.type in ("json", "list<enum>"):
        return sample.type == "json"
    return declared.type is None


def _refine(draft: FieldDraft, declared: Claim, sample: Claim) -> None:
    """Samples settle what a plain-string declaration leaves open."""
    if declared.type != "string" or declared.day_key or declared.values:
        return
    if sample.type == "datetime":
        draft.type, draft.max = "datetime", None
    elif sample.day_key:
        draft.day_key, draft.max = True, 10
    elif sample.type == "enum" and not sample.closed:
        draft.type, draft.values, draft.values_closed, draft.max = (
            "enum",
            sample.values,
            False,
            None,
        )
        draft.confidence = "low"
    else:
        return
    draft.evidence.append(Ev("sample", sample.detail))
    draft.notes.append(f"{declared.source} declares a plain string; {sample.detail}")


def _second_opinion(draft: FieldDraft, declared: Claim, other: Claim) -> None:
    if other.type is None:
        related = Ev(other.source, "a related field; the target is not named")
        draft.evidence.append(related if other.related else Ev(other.source))
        return
    agree = other.type == declared.type and other.day_key == declared.day_key
    if agree and other.type in ("enum", "list<enum>") and set(other.values) != set(declared.values):
        agree = False
    if agree:
        draft.evidence.append(Ev(other.source))
        if draft.confidence == "medium":
            draft.confidence = "high"
        return
    draft.evidence.append(Ev(other.source, f"says {_label(other)}"))
    draft.notes.append(
        f"disagree: {declared.source} says {_label(declared)}, {other.source} says "
        f"{_label(other)}; {declared.source} won (the published contract)"
    )
    draft.confidence = "low"


def _flags(draft: FieldDraft, field: FieldInput, declared: Claim | None) -> None:
    claims = [c for c in (field.spec, field.options) if c is not None]
    draft.required = any(bool(c.required) for c in claims[:1])
    draft.read_only = any(bool(c.read_only) for c in claims)
    if draft.read_only:
        draft.server_sets = next((c.server_sets for c in claims if c.server_sets), ())
    draft.write_only = any(bool(c.write_only) for c in claims) and not draft.read_only
    if field.spec and field.options and field.spec.required != field.options.required:
        draft.notes.append(
            f"disagree: required is {field.spec.required} in {field.spec.source}, "
            f"{field.options.required} in options; {field.spec.source} won"
        )
    spec = field.spec
    if spec is not None and spec.create_only and not draft.read_only:
        draft.create_only = True
        draft.evidence.append(Ev(spec.source, NOT_UPDATED))
        draft.notes.append(f"create-only: {NOT_UPDATED}")
    if spec is not None and spec.update_only and not draft.read_only and not draft.required:
        draft.update_only = True
        draft.evidence.append(Ev(spec.source, NOT_CREATED))
        draft.notes.append(f"update-only: {NOT_CREATED}")
    if spec is not None and spec.read_only and spec.detail == NOT_SENT:
        draft.evidence.append(Ev(spec.source, NOT_SENT))
        draft.notes.append(f"read-only: shown in records, {NOT_SENT}")
    if not claims and field.source.rsplit(".", 1)[-1] in SERVER_MANAGED:
        draft.read_only = True
        draft.evidence.append(Ev("name", "a server-managed timestamp name"))
        draft.notes.append("read-only by its name only; no source declares it")
    spec = field.spec
    stored_null = field.sample is not None and bool(field.sample.nullable)
    if (
        spec is not None and spec.source in SPEC_SOURCES and spec.nullable is False
        and not stored_null and not draft.required and not draft.read_only
    ):  # fmt: skip
        # A blank the upstream would refuse is refused by the guard, with every
        # other violation, instead of coming back alone from the upstream.
        draft.nullable = False
    if declared is not None and field.sampled and not field.present and not draft.read_only:
        draft.write_only = True
        draft.evidence.append(Ev("sample", "never present in the samples"))
        draft.notes.append("write-only: declared for writes but never answered")


def merge(field: FieldInput) -> FieldDraft | None:
    """The field decision, or None when no source can tell its type."""
    declared = field.spec if field.spec and field.spec.type else None
    declared = declared or (field.options if field.options and field.options.type else None)
    base = declared or field.sample
    if base is None or base.type is None:
        return None
    draft = FieldDraft(
        name=field.name, source=field.source, type=base.type, max=base.max,
        values=base.values, values_closed=base.closed, day_key=base.day_key,
        evidence=[Ev(base.source, base.detail if base.source == "sample" else None)],
        confidence="medium" if declared else "low",
    )  # fmt: skip
    if field.spec and field.spec.description and base.type not in ("enum", "list<enum>"):
        draft.description = field.spec.description
    ref = field.ref
    is_ref = ref is not None and ref.type is not None and ref.entity is not None
    codec = choose_codec(field.source.rsplit(".", 1)[-1], declared, field.sample)
    if codec is not None and not is_ref:
        # The wire spells the value otherwise: the type is the protocol's, decoded.
        draft.type, draft.codec, draft.max, draft.day_key = codec.type, codec.codec, None, False
        draft.values, draft.values_closed = (), True
        draft.evidence = [*draft.evidence, *codec.evidence]
        if codec.note:
            draft.notes.append(codec.note)
    if declared is not None:
        if declared is field.spec and field.options is not None:
            _second_opinion(draft, declared, field.options)
        if field.sample is not None and draft.codec is None:
            if _compatible(declared, field.sample):
                draft.evidence.append(Ev("sample"))
                if draft.confidence == "medium" and declared.type != "json":
                    draft.confidence = "high"
                if not is_ref:
                    _refine(draft, declared, field.sample)
            else:
                _second_opinion(draft, declared, field.sample)
    elif field.sample is not None and field.sample.type == "enum" and not is_ref:
        draft.notes.append("enum values are candidates seen in samples, not a closed set")
    _flags(draft, field, declared)
    if ref is not None and ref.type is not None and ref.entity is not None:
        draft.type, draft.entity, draft.max, draft.day_key = ref.type, ref.entity, None, False
        draft.values, draft.values_closed = (), True
        if ref.nested is not None and ref.type == "ref":
            draft.source = f"{field.source}.{ref.nested}"  # read from the nested id
        elif ref.nested is not None:
            draft.nested = True  # a list of objects: the runtime reads each one's id
        draft.evidence.extend(ref.evidence)
        disputed = any(n.startswith("disagree") for n in draft.notes)
        draft.confidence = "low" if disputed else ref.confidence
    elif ref is not None and ref.note:
        draft.notes.append(ref.note)
        draft.ref_candidates = ref.candidates
        if ref.ambiguous:
            draft.confidence = "low"
    if base.source in SPEC_SOURCES and draft.type == "json" and base.wire == "array:string":
        draft.notes.append("an array of strings that are not ids of a mapped entity")
    draft.evidence = list(dict.fromkeys(draft.evidence))
    return draft
