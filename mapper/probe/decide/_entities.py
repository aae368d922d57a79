"""One collection, as the spec and the live answers describe it -> an entity draft."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._draft import Claim, EntityDraft, Ev, FieldDraft
from .._errors import Finding
from .._naming import identifier
from ..live import jsonapi_targets, values_at
from ..sources import SpecCollection
from ._merge import FieldInput, merge
from ._paging import body_paging
from ._refs import RefDecision
from ._writenames import pair_write_names

if TYPE_CHECKING:
    from ._observe import Observation


@dataclass(slots=True)
class Source:
    """Everything known about one collection before the decisions."""

    name: str
    path: str
    spec: SpecCollection | None = None
    obs: Observation | None = None
    root: str | None = None  # the API root that named it
    owner: bool = False  # named by the owner (``--collection``)
    module: str = "api"
    module_summary: str | None = None
    spec_source: str = "openapi"
    refs: dict[str, RefDecision] = field(default_factory=dict)
    # Linked from an HTML page (`page`), answering JSON by `rendering`; its detail
    # route written the same way when that is not the usual one.
    page: str | None = None
    rendering: str | None = None
    detail_hint: str | None = None

    @property
    def jsonapi(self) -> bool:
        return bool(self.obs and self.obs.envelope and self.obs.envelope.jsonapi)

    @property
    def records(self) -> list[Mapping[str, object]]:
        return list(self.obs.records) if self.obs is not None else []

    def id_source(self) -> str | None:
        if self.obs is not None and self.obs.id_source is not None:
            return self.obs.id_source
        if self.spec is not None:
            if self.spec.id_param in self.spec.fields:
                return self.spec.id_param
            if "id" in self.spec.fields:
                return "id"
        return None

    def id_type(self) -> str:
        if self.obs is not None and self.obs.id_type is not None:
            return self.obs.id_type
        ident = self.id_source()
        claim = self.spec.fields.get(ident or "") if self.spec else None
        return "integer" if claim is not None and claim.wire == "integer" else "string"

    def template(self) -> str:
        """The detail route with ``{id}``: confirmed by a read, declared, or the convention."""
        if self.obs is not None and self.obs.detail_path is not None:
            return self.obs.detail_path
        if self.spec is not None:
            return self.spec.detail_path.replace("{" + self.spec.id_param + "}", "{id}")
        if self.detail_hint is not None:
            return self.detail_hint
        return self.path.rstrip("/") + "/{id}" + ("/" if self.path.endswith("/") else "")

    def explicit_targets(self) -> dict[str, str]:
        return jsonapi_targets(self.records) if self.jsonapi else {}

    def values(self, wire: str) -> list[object]:
        return values_at(self.records, wire, self.jsonapi) if self.obs else []


def field_inputs(src: Source) -> list[FieldInput]:
    """One input per wire field: spec order, then OPTIONS, then samples."""
    spec = dict(src.spec.fields) if src.spec else {}
    options = dict(src.obs.options.fields) if src.obs and src.obs.options else {}
    if src.obs and src.obs.detail_options:
        for name, claim in src.obs.detail_options.fields.items():
            options.setdefault(name, claim)
    samples = dict(src.obs.claims) if src.obs else {}
    ident = src.id_source()
    sampled = bool(src.records)
    seen = src.obs.seen if src.obs else frozenset()
    inputs = []
    for wire in dict.fromkeys([*spec, *options, *samples]):
        if wire == ident:
            continue
        name = identifier(wire.removeprefix("attributes.").removesuffix(".data.id"))
        name = name.removeprefix("relationships_") if wire.startswith("relationships.") else name
        inputs.append(
            FieldInput(
                name=name, source=wire, spec=spec.get(wire), options=options.get(wire),
                sample=samples.get(wire), sampled=sampled, present=wire in seen,
                ref=src.refs.get(wire),
            )
        )  # fmt: skip
    return inputs


def _write(src: Source) -> tuple[dict[str, object], Ev | None]:
    if src.spec is not None:
        methods, detail = src.spec.methods, src.spec.detail_methods
        ev = Ev(src.spec_source)
    elif src.obs and (src.obs.options or src.obs.detail_options):
        methods = src.obs.options.allowed if src.obs.options else frozenset()
        detail = src.obs.detail_options.allowed if src.obs.detail_options else frozenset()
        ev = Ev("options", "Allow headers")
    else:
        return {"create": False, "update": False, "delete": False}, None
    update: object = "PATCH" if "PATCH" in detail else ("PUT" if "PUT" in detail else False)
    if update is False and src.spec is not None and "POST" in detail:
        update = "POST"  # the spec's POST on the record's path answers the record
    write = {"create": "POST" in methods, "update": update, "delete": "DELETE" in detail}
    if src.spec is not None and src.spec.write_wrap is not None and any(write.values()):
        write["wrap"] = src.spec.write_wrap
    if src.spec is not None and src.spec.write_answer is not None and write["create"]:
        write["answer"] = src.spec.write_answer
    if src.spec is not None and src.spec.find_by is not None and write["create"]:
        write["findBy"] = src.spec.find_by
    return write, ev


def _write_shape_evidence(src: Source, write: Mapping[str, object]) -> list[Ev]:
    """Where a wrapping key and a find-by field came from."""
    spec, found = src.spec, []
    if spec is not None and "wrap" in write:
        found.append(Ev(src.spec_source, f"write bodies under {write['wrap']!r}: the "
                        f"create body of POST {spec.path} is that one key"))  # fmt: skip
    if spec is not None and "findBy" in write:
        found.append(Ev(src.spec_source, f"findBy {write['findBy']}: POST {spec.path} "
                        "answers no record and no Location; the record schema marks "
                        f"{write['findBy']} x-unique"))  # fmt: skip
    return found


def build(src: Source) -> tuple[EntityDraft | None, list[Finding]]:
    findings: list[Finding] = []
    if src.spec is not None and src.spec.list_path is not None:
        paging = body_paging(src.spec.items_key, src.spec.list_body, src.spec.list_keys)
        if paging.pagination["style"] == "none":
            # A POST the probe cannot send or see: without paging in its body there is
            # no telling whether one answer holds every record.
            detail = (f"a listing by POST whose body declares no paging property "
                      f"({', '.join(src.spec.list_body)}): {src.path} and "
                      f"{src.spec.detail_path} are not mapped")  # fmt: skip
            return None, [Finding(src.spec.list_path, "paging", detail, "POST")]
    ident = src.id_source()
    if ident is None:
        detail = "no id field is present and unique in every record"
        return None, [Finding(src.path, "ambiguous-id", detail, "GET")]
    fields: dict[str, FieldDraft] = {}
    for item in field_inputs(src):
        if item.sample is not None and item.sample.wire == "url" and item.spec is None:
            findings.append(Finding(src.path, "hyperlinked-ref", f"field {item.name}", "GET"))
            continue
        sample = item.sample
        if sample and sample.wire == "array:object" and item.source.startswith("relationships."):
            detail = f"field {item.name}: a to-many relationship of {{type, id}} objects"
            findings.append(Finding(src.path, "hyperlinked-ref", detail, "GET"))
            continue
        draft = merge(item)
        if draft is None:
            findings.append(
                Finding(src.path, "no-schema", f"field {item.name}: no source tells its type "
                        "(always null in the samples, no declaration)", "GET")
            )  # fmt: skip
            continue
        if src.spec is not None and item.spec is None and item.options is None:
            draft.notes.append(f"not declared by {src.spec_source}; typed from samples")
            draft.confidence = "low"
        name = draft.name
        while name in fields or name == "id":
            name += "_"
        draft.name = name
        fields[name] = draft
    if not fields:
        return None, [*findings, Finding(src.path, "no-schema", "no field could be typed", "GET")]
    evidence: list[Ev] = []
    if src.spec is not None and src.spec.list_path is not None:
        listed = f"POST {src.spec.list_path} and GET {src.spec.detail_path}"
        evidence.append(Ev(src.spec_source, listed))
    elif src.spec is not None:
        evidence.append(Ev(src.spec_source, f"GET {src.spec.path} and {src.spec.detail_path}"))
        if src.spec.instance_of is not None:
            evidence.append(Ev("links", src.spec.instance_of))
    if src.root is not None:
        evidence.append(Ev("links", f"named by the API root {src.root}"))
    if src.page is not None:
        detail = f"linked from the HTML page {src.page}; JSON by {src.rendering}"
        evidence.append(Ev("links", detail))
    if src.owner:
        evidence.append(Ev("owner", "named with --collection"))
    if src.obs is not None and src.obs.options is not None:
        evidence.append(Ev("options"))
    if src.records:
        evidence.append(Ev("sample"))
    if src.obs is not None:
        evidence.extend(src.obs.evidence)
    write, write_ev = _write(src)
    evidence.extend(_write_shape_evidence(src, write))
    confirmed = src.obs is not None and src.obs.detail_path is not None
    detail = src.template()
    if write_ev is None:
        evidence.append(Ev("sample", "no spec and no Allow header: writes are not proposed"))
    strong = src.spec is not None and confirmed
    confidence = "high" if strong else ("medium" if src.spec or confirmed else "low")
    summary = src.spec.summary if src.spec and src.spec.summary else None
    if summary is None and src.obs and src.obs.options and src.obs.options.description:
        summary = src.obs.options.description
    entity = EntityDraft(
        name=src.name, module=src.module, path=src.path, detail_path=detail,
        id_source=ident, id_type=src.id_type(), fields=fields, summary=summary,
        write=write, evidence=list(dict.fromkeys(evidence)), confidence=confidence,
        id_client=bool(src.obs and src.obs.id_client and src.obs.id_source == ident)
        or bool(src.spec and src.spec.id_client and src.spec.id_param == ident),
    )  # fmt: skip
    if src.spec is not None and src.spec.list_path is not None:
        entity.listing = posted_listing(src.spec, src.spec_source)
    pair_write_names(entity)
    return entity, findings


def posted_listing(spec: SpecCollection, source: str) -> dict[str, Any]:
    """``list:`` of a collection listed by POST: never sent by the probe, proven by verify."""
    paging = body_paging(spec.items_key, spec.list_body, spec.list_keys)
    shape = f"a list of records under {spec.items_key!r}" if spec.items_key else "a list of records"
    detail = (f"POST {spec.list_path} answers {shape}; {paging.notes[0]}; not sent by the "
              "probe (read-only), left for the verifier")  # fmt: skip
    return {"method": "POST", "path": spec.list_path, "pagination": paging.pagination,
            "evidence": [{"source": source, "detail": detail}]}  # fmt: skip


def ref_inputs(src: Source) -> dict[str, tuple[list[object], Claim | None, str | None]]:
    """Fields worth a ref decision: wire -> (sampled values, declared claim, explicit target)."""
    explicit = src.explicit_targets()
    out: dict[str, tuple[list[object], Claim | None, str | None]] = {}
    for item in field_inputs(src):
        declared = item.spec or item.options
        kind = declared.type if declared else None
        if kind in ("enum", "list<enum>", "datetime", "boolean", "binary") or (
            declared is not None and declared.day_key
        ):
            continue
        if declared is not None and declared.wire == "number":
            continue
        out[item.source] = (src.values(item.source), declared, explicit.get(item.source))
    return out
