"""Load a mapping: YAML -> JSON Schema -> cross-reference rules -> frozen objects."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from ._compile import compile_document
from ._errors import MappingError, PathPart, Problem
from ._interpolate import MissingVariable, check_templates, hash_form, variables
from ._model import Mapping as MappingModel
from ._schema import validate_document
from ._semantics import check_semantics

# libyaml's loader when the platform has it: ten times faster on large mappings.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def content_hash(doc: Any) -> str:
    """Canonical hash of the document as written (before `${VAR}` substitution), a
    template's default read as absent (`${VAR:-x}` as `${VAR}`)."""
    canonical = json.dumps(
        hash_form(doc), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _line_index(text: str) -> dict[tuple[PathPart, ...], int]:
    """Where each path starts in the file, so problems point at a line."""
    index: dict[tuple[PathPart, ...], int] = {}
    try:
        root = yaml.compose(text, Loader=_SafeLoader)
    except yaml.YAMLError:
        return index

    def walk(node: yaml.Node, path: tuple[PathPart, ...]) -> None:
        index[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = (*path, str(key.value))
                index[sub] = key.start_mark.line + 1
                walk(value, sub)
                index[sub] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*path, i))

    if root is not None:
        walk(root, ())
    return index


def _with_lines(problems: list[Problem], text: str) -> list[Problem]:
    if not problems:
        return problems
    index = _line_index(text)
    out = []
    for p in problems:
        path = p.path
        while path and path not in index:
            path = path[:-1]
        out.append(replace(p, line=index.get(path)))
    return out


def _yaml_problem(text: str) -> Problem:
    """The pure-Python parser's wording, the same with or without libyaml."""
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        return Problem((), f"not valid YAML: {getattr(exc, 'problem', exc)}", line)
    return Problem((), "not valid YAML")


_NOT_AN_OBJECT = "a mapping file must be a YAML object with format, app, upstream, ..."


def parse_text(text: str) -> tuple[Any, list[Problem]]:
    try:
        doc = yaml.load(text, Loader=_SafeLoader)
    except yaml.YAMLError:
        return None, [_yaml_problem(text)]
    if not isinstance(doc, dict):
        return None, [Problem((), _NOT_AN_OBJECT)]
    return doc, []


def check_document(doc: Any) -> list[Problem]:
    """Every problem of a parsed mapping document (without line numbers)."""
    problems = validate_document(doc)
    problems.extend(check_templates(doc))
    if not problems:
        problems = check_semantics(doc)
    return problems


def check_text(text: str) -> tuple[Any, list[Problem]]:
    """Every problem of a mapping text, offline; nothing is resolved or contacted."""
    doc, problems = parse_text(text)
    if doc is None:
        return None, problems
    return doc, _with_lines(check_document(doc), text)


def load_mapping_text(
    text: str,
    *,
    filename: str | None = None,
    env: Mapping[str, str] | None = None,
    resolve_env: bool = True,
) -> MappingModel:
    doc, problems = check_text(text)
    if problems:
        raise MappingError(problems, filename)
    return _compile(doc, filename, env, resolve_env)


def load_document(
    doc: Any,
    *,
    filename: str | None = None,
    env: Mapping[str, str] | None = None,
    resolve_env: bool = True,
) -> MappingModel:
    """A mapping document already in memory (built or dumped, not read from a file)."""
    problems = check_document(doc) if isinstance(doc, dict) else [Problem((), _NOT_AN_OBJECT)]
    if problems:
        raise MappingError(problems, filename)
    return _compile(doc, filename, env, resolve_env)


def _compile(
    doc: Any, filename: str | None, env: Mapping[str, str] | None, resolve_env: bool
) -> MappingModel:
    digest = content_hash(doc)
    environ = (os.environ if env is None else env) if resolve_env else None
    try:
        return compile_document(doc, content_hash=digest, env=environ, source_path=filename)
    except MissingVariable as exc:
        raise MappingError(_unset(doc, exc.names), filename) from None


def _unset(doc: dict[str, Any], names: tuple[str, ...]) -> list[Problem]:
    """The unset variables, each said where it is read: a hook's secret, else upstream."""
    hooks = (doc.get("serve") or {}).get("hooks", {})
    problems = [
        Problem(("serve", "hooks", hook, "secret"), f"environment variable not set: {name}")
        for hook, spec in hooks.items()
        for name in variables(spec["secret"])
        if name in names
    ]
    hooked = {name for spec in hooks.values() for name in variables(spec["secret"])}
    upstream = [name for name in names if name not in hooked]
    if upstream:
        message = f"environment variable(s) not set: {', '.join(upstream)}"
        problems.insert(0, Problem(("upstream",), message))
    return problems


def load_mapping(
    path: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    resolve_env: bool = True,
) -> MappingModel:
    p = Path(path)
    return load_mapping_text(
        p.read_text(encoding="utf-8"), filename=str(p), env=env, resolve_env=resolve_env
    )
