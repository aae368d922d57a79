"""`a2map review`: the owner's summary of a mapping, and what needs a human decision.

Per entity, every field with its type, flags, evidence and confidence; then the
list of decisions: low confidence, enum candidates, disagreements between
sources, ref candidates no lookup confirmed, write-only guesses, destructive
verbs known only by name, assumptions about the upstream, and everything unmapped.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from runtime.mapping import MappingError, check_text, load_mapping_text
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


def _evidence(items: list[Any]) -> str:
    names = [i if isinstance(i, str) else i.get("source", "?") for i in items or []]
    return ", ".join(dict.fromkeys(names)) or "none"


def _field_items(where: str, spec: Mapping[str, Any]) -> list[Item]:
    items: list[Item] = []
    note = str(spec.get("note", ""))
    if spec.get("valuesClosed") is False:
        values = ", ".join(map(str, spec.get("values", [])))
        items.append(Item(where, "enum candidates", f"seen values {values}; close or widen"))
    if "disagree" in note:
        items.append(Item(where, "sources disagree", note))
    if "ref candidate" in note or "ambiguous-id" in note:
        items.append(Item(where, "possible ref", note))
    if "write-only" in note or "by its name only" in note:
        items.append(Item(where, "guessed flag", note))
    if spec.get("confidence") == "low" and not items:
        items.append(Item(where, "low confidence", note or "one weak source"))
    return items


def review_items(doc: Mapping[str, Any]) -> list[Item]:
    """Every decision a mapping document leaves to its owner."""
    items: list[Item] = []
    for name, entity in (doc.get("entities") or {}).items():
        if entity.get("confidence") == "low":
            items.append(
                Item(f"entities.{name}", "low confidence", _evidence(entity.get("evidence")))
            )
        for fname, spec in (entity.get("fields") or {}).items():
            items.extend(_field_items(f"entities.{name}.fields.{fname}", spec))
    for op in doc.get("operations") or []:
        where = f"operations.{op.get('name')}"
        by_name = [e for e in op.get("evidence") or [] if isinstance(e, dict)
                   and e.get("source") == "name"]  # fmt: skip
        if op.get("destructive") and by_name:
            items.append(Item(where, "destructive by name only", str(by_name[0].get("detail"))))
        if op.get("confidence") == "low":
            items.append(Item(where, "low confidence", _evidence(op.get("evidence"))))
    for note in (doc.get("probe") or {}).get("notes") or []:
        if "assumed" in note or "optional?" in note or "not written" in note:
            items.append(Item("upstream", "assumption", note))
    for entry in doc.get("unmapped") or []:
        method = f"{entry['method']} " if entry.get("method") else ""
        items.append(Item(f"unmapped {method}{entry.get('path')}", "not mapped", entry["reason"]))
    return items


def _flags(spec: Mapping[str, Any]) -> str:
    parts = []
    if spec.get("required"):
        parts.append("required")
    if spec.get("readOnly"):
        parts.append("read-only")
    if spec.get("writeOnly"):
        parts.append("write-only")
    if "max" in spec:
        parts.append(f"max {spec['max']}")
    if spec.get("format"):
        parts.append(str(spec["format"]))
    if spec.get("entity"):
        parts.append(f"-> {spec['entity']}")
    if spec.get("values"):
        closed = "" if spec.get("valuesClosed", True) else " (candidates)"
        parts.append("{" + "|".join(map(str, spec["values"])) + "}" + closed)
    return " ".join(parts)


def summary_lines(doc: Mapping[str, Any], version: str) -> list[str]:
    app = doc["app"]
    up = doc["upstream"]
    entities = doc.get("entities") or {}
    ops = doc.get("operations") or []
    lines = [
        f"{app['id']} ({app.get('name') or 'unnamed'}): {len(entities)} entities, "
        f"{len(ops)} operations, {len(doc.get('unmapped') or [])} unmapped; "
        f"schemaVersion {version}",
        f"upstream {up['baseUrl']}: auth {(up.get('auth') or {}).get('type', 'none')}, "
        f"pagination {(up.get('pagination') or {}).get('style', 'none')}, "
        f"errors {up.get('errors', 'plain')}, dialect {up.get('dialect', 'none')}",
    ]
    for name, entity in entities.items():
        lines.append("")
        lines.append(
            f"{name} (module {entity['module']}, {entity['path']}, "
            f"confidence {entity.get('confidence', '?')})"
        )
        fields = entity.get("fields") or {}
        width = max((len(f) for f in fields), default=4)
        for fname, spec in fields.items():
            lines.append(
                f"  {fname:<{width}}  {spec['type']:<9} {_flags(spec):<28} "
                f"{spec.get('confidence', '?'):<6} {_evidence(spec.get('evidence'))}"
            )
    if ops:
        lines.append("")
        lines.append("operations")
        for op in ops:
            flags = [k for k in ("destructive", "readOnly") if op.get(k)]
            on = f" on {op['entity']}" if op.get("entity") else ""
            request = op.get("request") or (op.get("job") or {}).get("request") or {}
            lines.append(
                f"  {op['name']}{on}: {request.get('method', '?')} {request.get('path', '?')}"
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
    doc, _ = check_text(text)
    for line in summary_lines(doc, schema_version(mapping)):
        print(line, file=out)
    items = review_items(doc)
    print("", file=out)
    if not items:
        print("needs a decision: nothing", file=out)
    else:
        print(f"needs a decision ({len(items)}):", file=out)
        for item in items:
            print(f"  - {item.render()}", file=out)
    return Exit.OK
