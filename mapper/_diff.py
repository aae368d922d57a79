"""`a2map diff OLD NEW`: what changed in meaning between two mappings.

Both mappings are loaded and compared as `dump` writes them, so a default left
out and the same default written are one meaning; the URL's own default
(``${X_URL:-http://…}``, where the app ran when probed) is not meaning either.
Evidence, confidence, notes and layout are not meaning; entities, fields, types,
enum values, refs, filters, sort, operations, the upstream's behaviour and what is
unmapped are, and so is how it is served (`serve`: who may call, from where, how
often, what the app raises): a PR that widens `allowedOrigins` or drops a rate limit
shows it. The last line says whether ``schemaVersion`` (what
agents see in describe) moves. Exit 0 same meaning, 1 changed, 2 unusable input.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from runtime.mapping import (
    READ_ONLY,
    MappingError,
    dump,
    load_document,
    load_mapping_text,
    without_defaults,
)
from runtime.mapping import Mapping as MappingModel
from runtime.protocol import schema_version

from ._exits import Exit

# Field attributes that change what the field means (not why it was decided).
FIELD_KEYS = ("type", "source", "required", READ_ONLY, "writeOnly", "max", "entity", "format",
              "valuesClosed", "onDelete", "upstreamOnDelete", "upstreamChecksRef",
              "writeSource", "nullable")  # fmt: skip
OPERATION_KEYS = ("module", "entity", "destructive", READ_ONLY, "idempotent", "appliesWhen",
                  "request", "crud", "job", "response", "schedule")  # fmt: skip
ENTITY_KEYS = ("module", "path", "detailPath", "id", "label", "write", "auth")
UPSTREAM_KEYS = ("baseUrl", "auth", "headers", "pagination", "errors", "dialect", "envelope")


def _show(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "(none)" if value is None else str(value)


def _changes(
    where: str, old: Mapping[str, Any], new: Mapping[str, Any], keys: tuple[str, ...]
) -> list[str]:
    return [
        f"~ {where}: {key} {_show(old.get(key))} -> {_show(new.get(key))}"
        for key in keys
        if old.get(key) != new.get(key)
    ]


def _values(where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    before, after = list(old.get("values") or []), list(new.get("values") or [])
    if before == after:
        return []
    added = [v for v in after if v not in before]
    removed = [v for v in before if v not in after]
    parts = [f"+{v}" for v in added] + [f"-{v}" for v in removed]
    return [f"~ {where}: values {' '.join(parts) or 'reordered'}"]


def _param(spec: Any) -> str:
    if isinstance(spec, Mapping):
        return str(spec.get("param")) + (" (proven)" if spec.get("proven") else "")
    return str(spec)


def _filters(where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    def flat(doc: Mapping[str, Any]) -> dict[str, str]:
        return {
            f"{field} {op}": _param(param)
            for field, ops in (doc.get("filter") or {}).items()
            for op, param in ops.items()
        }

    before, after = flat(old), flat(new)
    lines = [f"+ {where}.filter {k} -> {after[k]}" for k in after if k not in before]
    lines += [f"- {where}.filter {k}" for k in before if k not in after]
    lines += [f"~ {where}.filter {k}: {before[k]} -> {after[k]}"
              for k in after if k in before and before[k] != after[k]]  # fmt: skip
    if (old.get("sort") or {}) != (new.get("sort") or {}):
        lines.append(f"~ {where}.sort: {_show(old.get('sort'))} -> {_show(new.get('sort'))}")
    return lines


def _entity(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    where = f"entities.{name}"
    lines = _changes(where, old, new, ENTITY_KEYS)
    lines += _changes(where, _listing(old), _listing(new), ("list",))
    before, after = old.get("fields") or {}, new.get("fields") or {}
    lines += [f"+ {where}.fields.{f}: {after[f]['type']}" for f in after if f not in before]
    lines += [f"- {where}.fields.{f}" for f in before if f not in after]
    for f in after:
        if f in before:
            lines += _changes(f"{where}.fields.{f}", before[f], after[f], FIELD_KEYS)
            lines += _values(f"{where}.fields.{f}", before[f], after[f])
    return lines + _filters(where, old, new)


def _listing(entity: Mapping[str, Any]) -> dict[str, Any]:
    """How an entity is listed (a POST listing pages in its body), evidence aside."""
    spec = entity.get("list")
    return {} if spec is None else {"list": {k: v for k, v in spec.items() if k != "evidence"}}


def _operations(old: list[Any], new: list[Any]) -> list[str]:
    before = {op["name"]: op for op in old}
    after = {op["name"]: op for op in new}
    lines = [f"+ operations.{n}" for n in after if n not in before]
    lines += [f"- operations.{n}" for n in before if n not in after]
    for name in after:
        if name not in before:
            continue
        lines += _changes(f"operations.{name}", before[name], after[name], OPERATION_KEYS)
        b, a = before[name].get("params") or {}, after[name].get("params") or {}
        lines += [f"+ operations.{name}.params.{p}" for p in a if p not in b]
        lines += [f"- operations.{name}.params.{p}" for p in b if p not in a]
        for p in a:
            if p in b:
                lines += _changes(f"operations.{name}.params.{p}", b[p], a[p], FIELD_KEYS)
                lines += _values(f"operations.{name}.params.{p}", b[p], a[p])
    return lines


def _flat(value: Any, where: str, out: dict[str, Any]) -> dict[str, Any]:
    """Dotted paths to leaves; a list of named items (a trigger's `type`, a hook's `name`)
    is keyed by that name, so reordering it is not a change and an edit names its item."""
    if isinstance(value, Mapping) and value:
        for key, item in value.items():
            _flat(item, f"{where}.{key}", out)
    elif isinstance(value, list) and value and _named(value):
        for item in value:
            _flat(item, f"{where}[{_item_name(item)}]", out)
    else:
        out[where] = value
    return out


def _named(items: list[Any]) -> bool:
    names = [_item_name(item) for item in items]
    return None not in names and len(set(names)) == len(names)


def _item_name(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    name = item.get("name", item.get("type"))
    return name if isinstance(name, str) else None


def _serve(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    before = _flat(old.get("serve") or {}, "serve", {})
    after = _flat(new.get("serve") or {}, "serve", {})
    lines = [f"+ {k}: {_show(after[k])}" for k in after if k not in before]
    lines += [f"- {k}" for k in before if k not in after]
    lines += [f"~ {k}: {_show(before[k])} -> {_show(after[k])}"
              for k in after if k in before and before[k] != after[k]]  # fmt: skip
    return lines


def _canonical(mapping: MappingModel | Mapping[str, Any]) -> dict[str, Any]:
    """The mapping as `dump` writes it: every default spelled one way, so an omitted
    default and a written one are the same meaning."""
    if not isinstance(mapping, MappingModel):
        mapping = load_document(dict(mapping), resolve_env=False)
    return dump(mapping)


def diff_docs(
    old: MappingModel | Mapping[str, Any], new: MappingModel | Mapping[str, Any]
) -> list[str]:
    """Semantic changes from `old` to `new`, one line each, in a stable order."""
    return _diff(_canonical(old), _canonical(new))


def _upstream(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A template's default (`${X_URL:-http://…}`) is where the app ran, not meaning."""
    upstream = dict(doc["upstream"])
    if isinstance(upstream.get("baseUrl"), str):
        upstream["baseUrl"] = without_defaults(upstream["baseUrl"])
    return upstream


def _diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    lines = _changes("app", old["app"], new["app"], ("id", "name", "version"))
    lines += _changes("upstream", _upstream(old), _upstream(new), UPSTREAM_KEYS)
    mods_before = [m["name"] for m in old.get("modules") or []]
    mods_after = [m["name"] for m in new.get("modules") or []]
    lines += [f"+ modules.{m}" for m in mods_after if m not in mods_before]
    lines += [f"- modules.{m}" for m in mods_before if m not in mods_after]
    before, after = old.get("entities") or {}, new.get("entities") or {}
    lines += [f"+ entities.{e} ({len(after[e].get('fields') or {})} fields)"
              for e in after if e not in before]  # fmt: skip
    lines += [f"- entities.{e}" for e in before if e not in after]
    for name in after:
        if name in before:
            lines += _entity(name, before[name], after[name])
    lines += _operations(list(old.get("operations") or []), list(new.get("operations") or []))
    lines += _serve(old, new)
    gone = {(u.get("method"), u["path"]): u["reason"] for u in old.get("unmapped") or []}
    came = {(u.get("method"), u["path"]): u["reason"] for u in new.get("unmapped") or []}
    lines += [f"+ unmapped {m or ''} {p}: {r}".replace("  ", " ") for (m, p), r in came.items()
              if (m, p) not in gone]  # fmt: skip
    lines += [
        f"- unmapped {m or ''} {p}".replace("  ", " ") for (m, p) in gone if (m, p) not in came
    ]
    return lines


def _load(path: Path, err: TextIO) -> MappingModel | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"a2map diff: {path}: cannot read: {exc.__class__.__name__}", file=err)
        return None
    try:
        mapping = load_mapping_text(text, filename=str(path), resolve_env=False)
    except MappingError as exc:
        print(f"a2map diff: {path} is not a valid mapping:\n{exc.render()}", file=err)
        return None
    return mapping


def diff_files(old: Path, new: Path, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    before, after = _load(old, err), _load(new, err)
    if before is None or after is None:
        return Exit.USAGE
    lines = diff_docs(before, after)
    for line in lines:
        print(line, file=out)
    version_before, version_after = schema_version(before), schema_version(after)
    moved = version_before != version_after
    state = (
        f"moves {version_before} -> {version_after}" if moved else f"unchanged ({version_after})"
    )
    print(f"schemaVersion {state}", file=out)
    if not lines:
        print("no semantic changes", file=out)
    return Exit.CHANGED if lines else Exit.SAME
