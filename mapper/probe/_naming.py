"""Names the mapping format accepts, derived the same way on every probe."""

from __future__ import annotations

import re

RESERVED_MODULES = ("data", "identity", "whoami", "context", "tasks", "events")
_PLACEHOLDER = re.compile(r"^\{[^}]*\}$")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(text: str) -> list[str]:
    """``finishedCount``, ``finished-count``, ``finished_count`` -> [finished, count]."""
    return [w.lower() for w in _NOT_WORD.split(_CAMEL.sub(" ", text)) if w]


def identifier(text: str) -> str:
    """A field or entity name (``^[A-Za-z_][A-Za-z0-9_]*$``) for a wire name."""
    name = "_".join(_NOT_WORD.sub(" ", text).split())
    if not name:
        return "_"
    return name if not name[0].isdigit() else "_" + name


def kebab(text: str, limit: int = 64) -> str:
    """Lower-kebab (``^[a-z][a-z0-9-]*$``), as module and operation names are."""
    name = "-".join(words(text))[:limit].strip("-")
    if not name or not name[0].isalpha():
        name = ("x-" + name)[:limit].strip("-")
    return name


def module_name(text: str) -> str:
    name = kebab(text, 32)
    return f"{name}-api"[:32] if name in RESERVED_MODULES else name


def app_id(text: str) -> str:
    """An app id from a title: ``Kanban API`` -> ``kanban``."""
    parts = words(text)
    while len(parts) > 1 and parts[-1] in ("api", "rest", "service", "server", "v1", "v2"):
        parts.pop()
    slug = "-".join(parts)[:64].strip("-")
    return slug if slug and slug[0].isalnum() else "app"


def env_prefix(app: str) -> str:
    """The variable prefix of an app id: ``kanban-drf`` -> ``KANBAN_DRF``."""
    prefix = _NOT_WORD.sub("_", app).strip("_").upper()
    return prefix if prefix and not prefix[0].isdigit() else f"APP_{prefix}".rstrip("_")


def singular(word: str) -> str:
    for plural, one in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if word.endswith(plural) and len(word) > len(plural) + 1:
            return word[: -len(plural)] + one
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 2:
        return word[:-1]
    return word


def segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def is_placeholder(segment: str) -> bool:
    return bool(_PLACEHOLDER.match(segment))


GENERIC_SEGMENTS = frozenset({"records", "items", "list", "all", "index", "search"})


def entity_name(path: str) -> str | None:
    """The entity a collection path serves: its last literal segment, unless that is
    generic (PocketBase's ``/api/collections/cards/records``), then the one before."""
    literal = [s for s in segments(path) if not is_placeholder(s)]
    while len(literal) > 1 and literal[-1].lower() in GENERIC_SEGMENTS:
        literal.pop()
    return identifier(literal[-1]).lower() if literal else None


def target_names(field: str) -> list[str]:
    """Entity names a reference field might point at: ``list_id`` -> [lists, list]."""
    base = field
    for suffix in ("_ids", "_id", "Ids", "Id", "_uuid", "_pk"):
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    base = identifier(base).lower()
    one = singular(base)
    names = [one + "s", one + "es", one[:-1] + "ies" if one.endswith("y") else "", one, base]
    seen: list[str] = []
    for name in names:
        if name and name not in seen:
            seen.append(name)
    return seen
