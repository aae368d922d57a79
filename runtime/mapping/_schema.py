"""The JSON Schema of mapping format 1, and its errors rewritten for a reviewer."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ._errors import PathPart, Problem, allowed, did_you_mean

if TYPE_CHECKING:
    import jsonschema_rs
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_FILE = "mapping.schema.json"
# Entities and operations past which a mapping is checked by the compiled validator first.
LARGE = 40

_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}


@cache
def schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _checker() -> jsonschema_rs.Validator:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(schema())


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


def _kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _branches_for(error: ValidationError) -> list[ValidationError]:
    """For a oneOf over tagged objects, the errors of the branch the instance aimed at."""
    instance = error.instance
    if not isinstance(instance, dict):
        return []
    by_branch: dict[int, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)  # type: ignore[arg-type]
    # A branch whose errors never mention the discriminating key is the one meant.
    keyed = [
        errs
        for errs in by_branch.values()
        if not any(e.validator in ("const", "enum") and e.relative_path for e in errs)
        and not any(e.validator == "type" and not e.relative_path for e in errs)
    ]
    if len(keyed) == 1:
        return keyed[0]
    return []


def _schema_of(error: ValidationError) -> dict[str, Any]:
    return error.schema if isinstance(error.schema, dict) else {}


def _tag_values(error: ValidationError) -> list[str]:
    values: list[str] = []
    for branch in _schema_of(error).get("oneOf", []):
        props = branch.get("properties", {})
        tag = props.get("type", {})
        if "const" in tag:
            values.append(str(tag["const"]))
        values.extend(str(v) for v in tag.get("enum", []))
    return values


def _best(error: ValidationError) -> Any:
    """The sub-error `jsonschema` deems most relevant, or None."""
    from jsonschema.exceptions import best_match

    return best_match(error.context) if error.context else None


def _format(error: ValidationError) -> list[Problem]:
    path: tuple[PathPart, ...] = tuple(error.absolute_path)
    kind = error.validator
    inst = error.instance
    if kind == "additionalProperties" and isinstance(inst, dict):
        known = list(_schema_of(error).get("properties", {}))
        extra = [k for k in inst if k not in known]
        return [
            Problem(
                (*path, key),
                f"unknown key '{key}'; allowed keys: {allowed(known)}{did_you_mean(key, known)}",
            )
            for key in extra
        ]
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return [Problem(path, f"missing required key '{missing}'")]
    if kind == "enum":
        options = list(error.validator_value)  # type: ignore[arg-type]
        return [
            Problem(
                path,
                f"{inst!r} is not allowed; allowed values: {allowed(options)}"
                f"{did_you_mean(inst, options)}",
            )
        ]
    if kind == "const":
        return [Problem(path, f"must be {error.validator_value!r}, got {inst!r}")]
    if kind == "type":
        return [Problem(path, f"expected {error.validator_value}, got {_kind(inst)}")]
    if kind == "pattern":
        return [Problem(path, f"{inst!r} does not match the pattern {error.validator_value}")]
    if kind == "propertyNames":
        sub = _best(error)
        name = sub.instance if sub is not None else "?"
        if sub is not None and sub.validator == "enum":
            options = sub.validator_value
            return [
                Problem(
                    (*path, str(name)),
                    f"'{name}' is not allowed here; allowed: {allowed(options)}"
                    f"{did_you_mean(name, options)}",
                )
            ]
        return [
            Problem(
                (*path, str(name)), "key must be a name: a letter or _, then letters, digits or _"
            )
        ]
    if kind == "oneOf":
        chosen = _branches_for(error)
        if chosen:
            return [p for sub in chosen for p in _format(sub)]
        tags = _tag_values(error)
        if tags and isinstance(inst, dict):
            got = inst.get("type")
            return [
                Problem(
                    (*path, "type"),
                    f"{got!r} is not allowed; allowed values: {allowed(tags)}"
                    f"{did_you_mean(got, tags)}",
                )
            ]
        sub = _best(error)
        if sub is not None:
            return _format(sub)
    if kind in ("minItems", "minProperties") and not inst:
        return [Problem(path, "must not be empty")]
    return [Problem(path, error.message)]


def _valid(doc: object) -> bool:
    """The compiled validator's yes or no, a hundred times faster than walking the errors."""
    try:
        return _checker().is_valid(doc)
    except (ValueError, TypeError, OverflowError):
        # not a JSON value (a tuple key, an int past 64 bits): the full walk says what it is
        return False


def _large(doc: object) -> bool:
    """A mapping the walk takes a noticeable time over (Stripe's: a quarter of a second)."""
    if not isinstance(doc, dict):
        return False
    parts = (doc.get("entities"), doc.get("operations"))
    return sum(len(part) for part in parts if isinstance(part, dict | list)) > LARGE


def validate_document(doc: object) -> list[Problem]:
    # The compiled validator pays for itself on a large mapping only: loading it costs a
    # process (the runtime's, for the whole of its life) about 9 MB where the walk costs
    # 4, and the walk checks a small mapping in milliseconds.
    if _large(doc) and _valid(doc):
        return []
    # The reviewer's messages come from `jsonschema`'s errors, so they read the same
    # whichever validator said no; where the two disagree, this walk has the last word.
    problems: list[Problem] = []
    errors = sorted(_validator().iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors:
        problems.extend(_format(error))
    return problems
