"""`a2map review`: the owner's summary of a mapping, and what needs a human decision.

Per entity, every field with its type, flags, evidence and confidence; then the
list of decisions: low confidence, enum candidates, disagreements between
sources, ref candidates no lookup confirmed, write-only guesses, destructive
verbs known only by name, assumptions about the upstream, and everything unmapped.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping as AbcMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from runtime.mapping import (
    DAY_KEY_FORMAT,
    READ_ONLY,
    Evidence,
    Field,
    Mapping,
    MappingError,
    declared_type,
    load_document,
    load_mapping_text,
)
from runtime.protocol import schema_version

from ._exits import Exit


@dataclass(frozen=True, slots=True)
class Item:
    """One thing an owner must decide: where it is, what kind, and why."""

    where: str
    kind: str
    message: str

    def render(self) -> str:
        return f"{self.where}: {self.kind}: {self.message}"


def _evidence(items: tuple[Evidence, ...]) -> str:
    return ", ".join(dict.fromkeys(e.source for e in items)) or "none"


def _field_items(where: str, f: Field) -> list[Item]:
    items: list[Item] = []
    note = f.note or ""
    if not f.values_closed:
        values = ", ".join(map(str, declared_type(f)[1]))
        items.append(Item(where, "enum candidates", f"seen values {values}; close or widen"))
    if "disagree" in note:
        items.append(Item(where, "sources disagree", note))
    if "ref candidate" in note or "ambiguous-id" in note:
        items.append(Item(where, "possible ref", note))
    if "write-only" in note or "by its name only" in note:
        items.append(Item(where, "guessed flag", note))
    if f.confidence == "low" and not items:
        items.append(Item(where, "low confidence", note or "one weak source"))
    return items


def _model(mapping: Mapping | AbcMapping[str, Any]) -> Mapping:
    """A document built in memory (tests, tools) is loaded like a file would be."""
    if isinstance(mapping, Mapping):
        return mapping
    return load_document(dict(mapping), resolve_env=False)


def review_items(mapping: Mapping | AbcMapping[str, Any]) -> list[Item]:
    """Every decision a mapping leaves to its owner."""
    m = _model(mapping)
    items: list[Item] = []
    for name, entity in m.entities.items():
        if entity.confidence == "low":
            items.append(Item(f"entities.{name}", "low confidence", _evidence(entity.evidence)))
        for fname, f in entity.fields.items():
            items.extend(_field_items(f"entities.{name}.fields.{fname}", f))
        if entity.list_method == "POST":
            # The probe never sent it: only `a2map verify` shows what it answers.
            detail = f"POST {entity.list_path}, from the spec, not sent by the probe"
            items.append(Item(f"entities.{name}.list", "listing by POST unproven", detail))
    for op in m.operations:
        where = f"operations.{op.name}"
        by_name = [e for e in op.evidence if e.detail is not None and e.source == "name"]
        if op.destructive and by_name:
            items.append(Item(where, "destructive by name only", str(by_name[0].detail)))
        if op.confidence == "low":
            items.append(Item(where, "low confidence", _evidence(op.evidence)))
    for note in (m.probe.notes if m.probe is not None else None) or ():
        if "assumed" in note or "optional?" in note or "not written" in note:
            items.append(Item("upstream", "assumption", note))
    for entry in m.unmapped:
        method = f"{entry.method} " if entry.method else ""
        items.append(Item(f"unmapped {method}{entry.path}", "not mapped", entry.reason))
    return items


def _flags(f: Field) -> str:
    parts = []
    if f.required:
        parts.append("required")
    if f.read_only:
        parts.append("read-only")
    if f.write_only:
        parts.append("write-only")
    if f.max is not None:
        parts.append(f"max {f.max}")
    if f.day_key:
        parts.append(DAY_KEY_FORMAT)
    if f.entity:
        parts.append(f"-> {f.entity}")
    if f.write_source is not None:
        parts.append("writes " + ".".join(f.write_source))
    values = declared_type(f)[1]
    if values:
        closed = "" if f.values_closed else " (candidates)"
        parts.append("{" + "|".join(map(str, values)) + "}" + closed)
    return " ".join(parts)


def summary_lines(mapping: Mapping | AbcMapping[str, Any], version: str) -> list[str]:
    m = _model(mapping)
    up = m.upstream
    lines = [
        f"{m.app.id} ({m.app.name or 'unnamed'}): {len(m.entities)} entities, "
        f"{len(m.operations)} operations, {len(m.unmapped)} unmapped; "
        f"schemaVersion {version}",
        f"upstream {up.base_url}: auth {up.auth.type}, pagination {up.pagination.style}, "
        f"errors {up.errors}, dialect {up.dialect}",
    ]
    for name, entity in m.entities.items():
        lines.append("")
        chosen = (
            f", id {'.'.join(entity.id_source)} chosen by the client" if entity.id_client else ""
        )
        lines.append(
            f"{name} (module {entity.module}, {entity.path}{chosen}, "
            f"confidence {entity.confidence or '?'})"
        )
        width = max((len(f) for f in entity.fields), default=4)
        for fname, f in entity.fields.items():
            lines.append(
                f"  {fname:<{width}}  {declared_type(f)[0]:<9} {_flags(f):<28} "
                f"{f.confidence or '?':<6} {_evidence(f.evidence)}"
            )
    if m.operations:
        lines.append("")
        lines.append("operations")
        for op in m.operations:
            flags = [k for k, on in (("destructive", op.destructive), (READ_ONLY, op.read_only))
                     if on]  # fmt: skip
            target = f" on {op.entity}" if op.entity else ""
            request = op.request or (op.job.request if op.job is not None else None)
            method, path = (request.method, request.path) if request else ("?", "?")
            lines.append(
                f"  {op.name}{target}: {method} {path}"
                + (f" [{', '.join(flags)}]" if flags else "")
            )
    return lines


def review_file(path: Path, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"a2map review: {path}: cannot read: {exc.__class__.__name__}", file=err)
        return Exit.USAGE
    try:
        mapping = load_mapping_text(text, filename=str(path), resolve_env=False)
    except MappingError as exc:
        print(f"a2map review: {path} is not a valid mapping:\n{exc.render()}", file=err)
        return Exit.INVALID
    for line in summary_lines(mapping, schema_version(mapping)):
        print(line, file=out)
    items = review_items(mapping)
    print("", file=out)
    if not items:
        print("needs a decision: nothing", file=out)
    else:
        print(f"needs a decision ({len(items)}):", file=out)
        for item in items:
            print(f"  - {item.render()}", file=out)
    return Exit.OK
