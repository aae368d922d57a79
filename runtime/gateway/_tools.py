"""The fixed tool set: four tools whatever the apps hold, with hand-written schemas.

The schemas are written by hand, not generated, because every character of the
tools/list answer is read by the model on every turn: no titles, no anyOf, no
per-app enums. The SDK advertises a schema and never applies it, so `check`
applies it here, reporting every violation at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types as types

from runtime.protocol import ProtocolError

# A text argument is advertised as `{}`: the property's name says what it holds, and
# `check` holds it to text (or a whole number, for ids), saving a sixth of the list.
_STR: dict[str, Any] = {}
_OBJ = {"type": "object"}
_APP = {"app": _STR}

RECORD_ACTIONS = ("list", "get", "create", "update", "delete")
TASK_ACTIONS = ("events", "list", "get", "claim", "progress", "complete", "cancel")
QUERY_KEYS = ("filter", "sort", "page", "perPage", "expand", "fields", "skipTotal")


def _schema(required: list[str], **properties: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


TOOLS: tuple[types.Tool, ...] = (
    types.Tool(
        name="describe",
        description="Start at path ''; then follow next",
        input_schema=_schema([], **_APP, path=_STR, find=_STR),
        annotations=types.ToolAnnotations(read_only_hint=True),
    ),
    types.Tool(
        name="records",
        description="query: filter,sort,page,perPage,expand,fields; key: idempotency",
        input_schema=_schema(
            ["entity", "action"],
            entity=_STR,
            action={"enum": list(RECORD_ACTIONS)},
            **_APP,
            id=_STR,
            data=_OBJ,
            query=_OBJ,
            key=_STR,
        ),
    ),
    types.Tool(
        name="operation",
        input_schema=_schema(["name"], name=_STR, **_APP, args=_OBJ, key=_STR),
    ),
    types.Tool(
        name="tasks",
        input_schema=_schema(
            ["action"],
            action={"enum": list(TASK_ACTIONS)},
            **_APP,
            id=_STR,
            data=_OBJ,
            since=_STR,
        ),
    ),
)
_BY_NAME = {tool.name: tool for tool in TOOLS}


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call whose arguments passed the tool's schema."""

    tool: str
    args: dict[str, Any]

    def text(self, name: str) -> str | None:
        value = self.args.get(name)
        return value if isinstance(value, str) else None

    def object(self, name: str) -> dict[str, Any] | None:
        value = self.args.get(name)
        return value if isinstance(value, dict) else None


def _violation(code: str, field: str, expected: str, got: Any) -> dict[str, Any]:
    return {"code": code, "field": field, "expected": expected, "got": got}


def check(name: str, arguments: dict[str, Any] | None) -> Call:
    """The call, or a `usage` refusal that lists every argument wrong with it."""
    tool = _BY_NAME.get(name)
    if tool is None:
        raise ProtocolError("usage", f"No tool {name!r}; the tools are {', '.join(_BY_NAME)}.")
    args = dict(arguments or {})
    properties: dict[str, Any] = tool.input_schema["properties"]
    violations: list[dict[str, Any]] = []
    for key, value in args.items():
        spec = properties.get(key)
        if spec is None:
            violations.append(
                _violation("unknown_field", key, "one of: " + ", ".join(properties), value)
            )
        elif "enum" in spec and value not in spec["enum"]:
            violations.append(
                _violation("invalid_enum", key, "one of: " + " | ".join(spec["enum"]), value)
            )
        elif not spec and not _text(value):
            violations.append(_violation("invalid_string", key, "text", value))
        elif spec.get("type") == "object" and not isinstance(value, dict):
            violations.append(_violation("usage", key, "a JSON object", value))
    for key in tool.input_schema.get("required", []):
        if key not in args:
            violations.append(
                _violation("missing_required", key, "a non-blank value (required field)", None)
            )
    if violations:
        raise _usage(name, violations)
    return Call(name, {k: str(v) if isinstance(v, int) else v for k, v in args.items()})


def _text(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _usage(tool: str, violations: list[dict[str, Any]]) -> ProtocolError:
    first = violations[0]
    return ProtocolError(
        "usage",
        f"The {tool} tool's arguments are not valid ({len(violations)} problem(s)).",
        field=first["field"],
        violations=violations,
    )


def refuse_arguments(tool: str, field: str, expected: str, got: Any) -> ProtocolError:
    """One argument that the schema lets through but this call cannot use."""
    return _usage(tool, [_violation("usage", field, expected, got)])
