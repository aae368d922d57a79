"""`${VAR}` and `${VAR:-default}` templates, allowed only for URLs and secrets.

Templates stay unresolved in the compiled mapping's hash input, so a new port
or token never changes the content hash; they are resolved once at load time
for serving.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._errors import PathPart, Problem

TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

# Where a template may appear (`*` matches any key).
ALLOWED_LOCATIONS: tuple[tuple[str, ...], ...] = (
    ("upstream", "baseUrl"),
    ("upstream", "auth", "value"),
    ("upstream", "auth", "token"),
    ("upstream", "auth", "username"),
    ("upstream", "auth", "password"),
    ("upstream", "headers", "*"),
    ("serve", "hooks", "*", "secret"),
)
# Where a literal secret must never be written.
SECRET_LOCATIONS: tuple[tuple[str, ...], ...] = (
    ("upstream", "auth", "value"),
    ("upstream", "auth", "token"),
    ("upstream", "auth", "password"),
    ("serve", "hooks", "*", "secret"),
)
_SECRET_PARENTS = tuple(location[:-1] for location in SECRET_LOCATIONS)


def _matches(path: Sequence[PathPart], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(
        p == "*" or p == str(part) for part, p in zip(path, pattern, strict=True)
    )


def check_templates(doc: object) -> list[Problem]:
    """Templates outside the allowed places, malformed ones, and literal secrets."""
    problems: list[Problem] = []

    def check(text: str, path: tuple[PathPart, ...]) -> None:
        if "${" in text:
            if not any(_matches(path, loc) for loc in ALLOWED_LOCATIONS):
                problems.append(
                    Problem(
                        path,
                        "${...} interpolation is allowed only in upstream.baseUrl, "
                        "upstream.auth and upstream.headers values and serve.hooks secrets",
                    )
                )
            elif len(TEMPLATE.findall(text)) != text.count("${"):
                problems.append(
                    Problem(path, "malformed template; write ${VAR} or ${VAR:-default}")
                )
        if any(_matches(path, loc) for loc in SECRET_LOCATIONS):
            secret_vars = [m for m in TEMPLATE.finditer(text) if not m.group(2)]
            if not secret_vars:
                problems.append(
                    Problem(
                        path,
                        "secrets must come from the environment: write ${VAR} "
                        "(without a default) instead of a literal value",
                    )
                )

    def walk(node: dict[Any, Any] | list[Any], path: tuple[PathPart, ...]) -> None:
        # A string is looked at only when it holds a template or sits where a secret
        # goes: a large mapping is mostly strings that are neither.
        secrets = any(_matches(path, parent) for parent in _SECRET_PARENTS)
        keyed = isinstance(node, dict)
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in pairs:
            if isinstance(value, dict | list):
                walk(value, (*path, str(key) if keyed else key))
            elif isinstance(value, str) and (secrets or "${" in value):
                check(value, (*path, str(key) if keyed else key))

    if isinstance(doc, dict | list):
        walk(doc, ())
    elif isinstance(doc, str):
        check(doc, ())
    return problems


class MissingVariable(Exception):
    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        super().__init__(", ".join(names))


def resolve(template: str, env: Mapping[str, str]) -> str:
    """Substitute variables; raise `MissingVariable` naming every unset one."""
    missing: list[str] = []

    def sub(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value is None or value == "":
            if default is not None:
                return default
            missing.append(name)
            return ""
        return value

    out = TEMPLATE.sub(sub, template)
    if missing:
        raise MissingVariable(missing)
    return out


def without_defaults(text: str) -> str:
    """Every ``${VAR:-default}`` read as ``${VAR}``.

    A default says where the app ran when it was probed (a sample's port, the owner's
    host), not what the mapping means: the content hash and a re-probe's comparison
    read it this way, so a new port keeps the stamp and the checked-in bytes.
    """
    return TEMPLATE.sub(lambda m: "${" + m.group(1) + "}", text)


def hash_form(doc: object) -> object:
    """The document with the defaults of its upstream templates dropped (see above)."""

    def strip(node: object) -> object:
        if isinstance(node, dict):
            return {key: strip(value) for key, value in node.items()}
        if isinstance(node, list):
            return [strip(value) for value in node]
        return without_defaults(node) if isinstance(node, str) else node

    # Templates live only under `upstream` (check_templates refuses them elsewhere).
    if isinstance(doc, dict) and "upstream" in doc:
        return {**doc, "upstream": strip(doc["upstream"])}
    return doc


def variables(template: str) -> tuple[str, ...]:
    return tuple(m.group(1) for m in TEMPLATE.finditer(template))
