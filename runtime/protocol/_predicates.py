"""`appliesWhen`: the closed availability language and its blocked reasons (§22.2)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping as AbcMapping
from typing import Any

from runtime.mapping import AllOf, AnyOf, Compare, Entity, Not, Predicate, compile_predicate

from ._jsjson import compact_json, js_string


def _blank(value: Any) -> bool:
    return value is None or value == ""


def _as_declared(entity: Entity, name: str, value: Any) -> Any:
    """Read a value as its field's declared type: blank -> None, "true" -> True, "2" -> 2."""
    if _blank(value):
        return None
    field = entity.fields.get(name)
    kind = field.type if field is not None else "string"
    if kind == "boolean" and isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if kind == "number" and isinstance(value, str):
        number = _js_number(value)
        if number is None:
            return value
        return int(number) if number.is_integer() else number
    return value


# What JavaScript's `Number(text)` accepts, ASCII only: Python's float() also takes
# "1_000", "nan", "inf" and non-ASCII digits, which JavaScript reads as NaN.
_JS_SPACE = (
    " \t\n\v\f\r\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)", re.ASCII)


def _js_number(text: str) -> float | None:
    """`Number(text)` when it is finite, else None."""
    text = text.strip(_JS_SPACE)
    if text == "":
        return 0.0
    if _RADIX.fullmatch(text):
        try:
            number = float(int(text, 0))
        except OverflowError:
            return None
    elif _DECIMAL.fullmatch(text):
        number = float(text)
    else:
        return None
    return number if math.isfinite(number) else None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list | dict | tuple | AbcMapping) or isinstance(
        b, list | dict | tuple | AbcMapping
    ):
        return compact_json(_plain(a)) == compact_json(_plain(b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _plain(value: Any) -> Any:
    if isinstance(value, AbcMapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def render(value: Any) -> str:
    """A value in a blocked reason, as the reference prints it (stored values arrive
    already read as declared, so a stored "" is None here and prints `blank`)."""
    if value is None:
        return "blank"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list | tuple | AbcMapping):
        return compact_json(_plain(value))
    return js_string(value)


def _or_list(values: list[str]) -> str:
    if len(values) <= 1:
        return "".join(values)
    return ", ".join(values[:-1]) + " or " + values[-1]


def evaluate(
    pred: Predicate | AbcMapping[str, Any], entity: Entity, record: AbcMapping[str, Any]
) -> str | None:
    """None when available; else the deterministic reason it is blocked.

    A predicate object as written (JSON) is compiled first, as the loader does.
    """
    if not isinstance(pred, AllOf | AnyOf | Not | Compare):
        try:
            pred = compile_predicate(pred)
        except (AttributeError, KeyError, StopIteration, TypeError):
            return "the condition on the record is not met"
    if isinstance(pred, AllOf):
        for sub in pred.items:
            reason = evaluate(sub, entity, record)
            if reason is not None:
                return reason
        return None
    if isinstance(pred, AnyOf):
        reasons = [evaluate(sub, entity, record) for sub in pred.items]
        return None if any(r is None for r in reasons) else reasons[0]
    if isinstance(pred, Not):
        return _negated(pred.item, entity, record)
    return _compare(pred, entity, record)


def _compare(pred: Compare, entity: Entity, record: AbcMapping[str, Any]) -> str | None:
    name, value = pred.field, pred.value
    actual = _as_declared(entity, name, record.get(name))
    if pred.op == "eq":
        want = _as_declared(entity, name, value)
        return None if _same(actual, want) else f"{name} is {render(actual)}, not {render(value)}"
    if pred.op == "ne":
        want = _as_declared(entity, name, value)
        return f"{name} is {render(actual)}" if _same(actual, want) else None
    if pred.op == "in":
        options = [_as_declared(entity, name, v) for v in value]
        if any(_same(actual, v) for v in options):
            return None
        return f"{name} is {render(actual)}, not {_or_list([render(v) for v in value])}"
    if pred.op == "notIn":
        options = [_as_declared(entity, name, v) for v in value]
        return f"{name} is {render(actual)}" if any(_same(actual, v) for v in options) else None
    if value:  # isBlank: true
        return None if actual is None else f"{name} is set to {render(actual)}, not blank"
    return f"{name} is blank" if actual is None else None


def _negated(pred: Predicate, entity: Entity, record: AbcMapping[str, Any]) -> str | None:
    inner = evaluate(pred, entity, record)
    if inner is not None:
        return None
    name = pred.field if isinstance(pred, Compare) else None
    if isinstance(pred, Compare) and pred.op == "isBlank":
        return f"{name} is blank" if pred.value else f"{name} is set"
    if isinstance(pred, Compare) and pred.op == "eq":
        return f"{name} is {render(_as_declared(entity, pred.field, record.get(pred.field)))}"
    return f"the condition on {name or 'the record'} is not met"
