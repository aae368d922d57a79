"""Foreign validation answers (400/409/422) read per the mapping's ``errors`` dialect.

Each dialect turns a body into ``(upstream path or None, message)`` pairs; the
paths are then mapped back to protocol field names through the entity's sources,
so an agent sees ``title``, never ``attributes.title`` or ``/data/attributes/title``.

Whatever the dialect, a body holding a list of pydantic errors (``[{loc, msg, type}]``,
FastAPI's ``detail`` or a wrapper's such as Prefect's ``exception_detail``) is read by
its shape: each error names the field its ``loc`` points at in the body.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from runtime.mapping import Entity

Path = tuple[str, ...]
Found = list[tuple[Path | None, str]]
# Enough to fix a form; an upstream listing thousands of errors gains nothing more.
MAX_VIOLATIONS = 50
# Rails in development mode explains its exceptions; those are internals, never shown.
_INTERNAL_KEYS = frozenset({"exception", "traceback"})
# With a bare value these describe the answer, not a field (a card's `title` errors
# come as a list of messages); the RFC 9457 ones only in a problem-shaped body.
_META_KEYS = frozenset({"status", "code"})
_PROBLEM_KEYS = frozenset({"type", "title", "instance"})
_GENERAL_KEYS = ("detail", "message", "error", "non_field_errors", "base", "__all__")


def _flatten(value: Any, path: Path, out: Found) -> None:
    """DRF/Rails nesting: lists of messages, dicts of nested fields, lists of dicts."""
    if isinstance(value, str):
        out.append((path or None, value))
    elif isinstance(value, list):
        for item in value:
            _flatten(item, path, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, (*path, str(key)), out)


def _is_meta(body: dict[str, Any], key: str, value: Any) -> bool:
    if key in _INTERNAL_KEYS:
        return True
    if isinstance(value, list | dict):
        return False
    problem = "type" in body or "status" in body
    return key in _META_KEYS or (problem and key in _PROBLEM_KEYS)


def _field_dict(body: dict[str, Any], out: Found) -> None:
    for key, value in body.items():
        if _is_meta(body, key, value):
            continue
        _flatten(value, () if key in _GENERAL_KEYS else (str(key),), out)


def _drf(body: Any, out: Found) -> None:
    if isinstance(body, dict):
        _field_dict(body, out)
    else:
        _flatten(body, (), out)


def _rails(body: Any, out: Found) -> None:
    if isinstance(body, dict) and "errors" in body:
        errors = body["errors"]
        if isinstance(errors, dict):
            _field_dict(errors, out)
        else:
            _flatten(errors, (), out)
    else:
        _drf(body, out)


def _pocketbase(body: Any, out: Found) -> None:
    if not isinstance(body, dict):
        _flatten(body, (), out)
        return
    data = body.get("data")
    if isinstance(data, dict) and data:
        _pocketbase_data(data, (), out)
    elif isinstance(body.get("message"), str):
        out.append((None, body["message"]))


def _pocketbase_data(data: dict[str, Any], path: Path, out: Found) -> None:
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(value.get("message"), str):
            out.append(((*path, str(key)), value["message"]))
        elif isinstance(value, dict):
            _pocketbase_data(value, (*path, str(key)), out)


def _pointer(pointer: Any) -> Path | None:
    if not isinstance(pointer, str) or not pointer.strip("/"):
        return None
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if parts and parts[0] == "data":
        parts = parts[1:]
    return tuple(parts) or None


def _jsonapi(body: Any, out: Found) -> None:
    errors = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(errors, list):
        _drf(body, out)
        return
    for error in errors:
        if not isinstance(error, dict):
            _flatten(error, (), out)
            continue
        text = error.get("detail") or error.get("title") or error.get("code")
        source = error.get("source")
        path = _pointer(source.get("pointer")) if isinstance(source, dict) else None
        if isinstance(text, str):
            out.append((path, text))


def _graphql(body: Any, out: Found) -> None:
    """``{errors: [{message, extensions: {field, code}}]}`` (Directus over REST too)."""
    errors = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(errors, list):
        _plain(body, out)
        return
    for error in errors:
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            _flatten(error, (), out)
            continue
        extensions = error.get("extensions")
        field = extensions.get("field") if isinstance(extensions, dict) else None
        path = tuple(str(field).split(".")) if isinstance(field, str) and field else None
        out.append((path, error["message"]))


_BRACKETS = re.compile(r"\[([^\]]*)\]")


def _form_param(param: str) -> Path | None:
    """``metadata[plan]`` -> ``("metadata", "plan")``; ``items[0][price]`` likewise."""
    head, _, rest = param.partition("[")
    if not head:
        return None
    return (head, *_BRACKETS.findall("[" + rest)) if rest else (head,)


def _error_object(body: Any, out: Found) -> None:
    """``{error: {type, code, param, message}}``: one error, its parameter in form notation."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        _plain(body, out)
        return
    param = error.get("param")
    path = _form_param(param) if isinstance(param, str) and param else None
    out.append((path, error["message"]))


def _plain(body: Any, out: Found) -> None:
    if isinstance(body, dict):
        general = [body[k] for k in _GENERAL_KEYS if isinstance(body.get(k), str)]
        if general:
            out.extend((None, text) for text in general)
            return
        _field_dict(body, out)
    else:
        _flatten(body, (), out)


ERROR_DIALECTS: dict[str, Callable[[Any, Found], None]] = {
    "drf": _drf,
    "rails": _rails,
    "pocketbase": _pocketbase,
    "jsonapi": _jsonapi,
    "plain": _plain,
    "graphql": _graphql,
    "error-object": _error_object,
}


# Where a pydantic error's `loc` starts: the part of the request, not a field.
_LOC_PARTS = frozenset({"body", "query", "path", "header", "cookie"})


def _is_pydantic(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(e, dict) and isinstance(e.get("loc"), list) and
                isinstance(e.get("msg"), str) for e in value)
    )  # fmt: skip


def _pydantic(body: Any, out: Found) -> bool:
    """Read the body's lists of pydantic errors, if it holds any; whether it did."""
    if not isinstance(body, dict):
        return False
    lists = [v for v in body.values() if _is_pydantic(v)]
    for errors in lists:
        for error in errors:
            loc = [str(part) for part in error["loc"]]
            if loc and loc[0] in _LOC_PARTS:
                loc = loc[1:]
            out.append((tuple(loc) or None, error["msg"]))
    return bool(lists)


def protocol_field(entity: Entity | None, path: Path, wrap: Path = ()) -> str:
    """The protocol name of an upstream field path; the upstream name if unmapped."""
    if wrap and path[: len(wrap)] == wrap and len(path) > len(wrap):
        path = path[len(wrap) :]
    if entity is None:
        return ".".join(path)
    if path == entity.id_source:
        return "id"
    inside: tuple[int, str] | None = None
    above: list[str] = []
    for field in entity.fields.values():
        source = field.source
        if path == source or path == field.write_source:
            return field.name
        if path[: len(source)] == source and (inside is None or len(source) > inside[0]):
            inside = (len(source), field.name)  # an item of a list field: ("tags", "0")
        elif source[: len(path)] == path or source == (*path[:-1], path[-1] + "_id"):
            # A pointer to a relationship above its id, or Rails naming `list`
            # in errors for the column `list_id`; only when it names one field.
            above.append(field.name)
    if inside:
        return inside[1]
    return above[0] if len(above) == 1 else ".".join(path)


def violations(
    dialect: str,
    body: Any,
    *,
    entity: Entity | None,
    clean: Callable[[str], str],
    wrap: Path = (),
) -> list[dict[str, Any]]:
    """``[{code: "upstream_rejected", field, expected}]`` from a validation answer."""
    found: Found = []
    if not _pydantic(body, found):
        ERROR_DIALECTS.get(dialect, _plain)(body, found)
    if not found and dialect != "plain":
        _plain(body, found)  # an upstream does not always answer in its own dialect
    out: list[dict[str, Any]] = []
    for path, message in found[:MAX_VIOLATIONS]:
        text = clean(message)
        if not text:
            continue
        field = clean(protocol_field(entity, path, wrap)) if path else None
        out.append({"code": "upstream_rejected", "field": field, "expected": text})
    return out
