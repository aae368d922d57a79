"""Upstream paths the runtime can send as written.

Every mapping path is appended to the upstream's base URL when a request is built
(`BaseUrl.join` in runtime.upstream), which refuses, at that moment, a path it cannot
send: one holding a fragment, or one that reads as a URL of its own. Checked here, such
a path is named when the mapping is linted or loaded, before any request needs it.

What the join sends as written is no problem: non-ASCII characters and spaces (it
percent-encodes them), escapes already there (`%2F`), and a query (`/cards?format=json`),
which is kept on every request with the paging and filter parameters merged into it.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from ._errors import PathPart, Problem

_PLACEHOLDER = re.compile(r"\{([^}]*)\}")

# Where an entity keeps its paths, and the placeholders the runtime fills in each: a
# collection is listed and created at a fixed path; a record path gets the record's id.
_ENTITY_PATHS: tuple[tuple[tuple[str, ...], str, Collection[str]], ...] = (
    (("path",), "a collection path", ()),
    (("list", "path"), "a listing path", ()),
    (("detailPath",), "a record path (it fills {id} only)", ("id",)),
)


def placeholders(path: str) -> list[str]:
    """The names of the path's `{name}` placeholders, in order."""
    return _PLACEHOLDER.findall(path)


def path_problems(where: tuple[PathPart, ...], path: str) -> list[Problem]:
    """What keeps any mapping path from being sent as written."""
    problems = []
    if "#" in path:
        problems.append(
            Problem(
                where,
                f"'{path}' holds '#', a fragment no request carries: the runtime refuses to "
                "send it; write %23 where the upstream's path holds the character",
                code="path-fragment",
            )
        )
    if path.startswith("//") or "://" in path:
        problems.append(
            Problem(
                where,
                f"'{path}' reads as a URL of its own ('//' first, or '://'): the runtime "
                "refuses it as outside the upstream; write the path under upstream.baseUrl "
                "with one leading '/', and ':' in a query as %3A",
                code="path-absolute",
            )
        )
    return problems


def entity_path_problems(base: tuple[PathPart, ...], spec: dict[str, Any]) -> list[Problem]:
    """An entity's collection, listing and record paths, each checked as it is sent."""
    problems: list[Problem] = []
    detail = spec.get("detailPath")
    if detail is not None and "{id}" not in detail:
        problems.append(Problem((*base, "detailPath"), "must contain the {id} placeholder"))
    for keys, what, fills in _ENTITY_PATHS:
        path = spec.get(keys[0]) if len(keys) == 1 else (spec.get(keys[0]) or {}).get(keys[1])
        if path is None:
            continue
        where = (*base, *keys)
        problems.extend(path_problems(where, path))
        problems.extend(
            Problem(
                where,
                f"'{path}' holds {{{name}}}, which the runtime does not fill in {what}: it "
                "would be sent as written",
                code="path-placeholder",
            )
            for name in placeholders(path)
            if name not in fills
        )
    path = spec["path"]
    if "?" in path and "detailPath" not in spec:
        problems.append(
            Problem(
                (*base, "path"),
                f"'{path}' holds a query, so the default record path (the path with /{{id}} "
                "appended) would put the id inside it; write detailPath, {id} before the query",
                code="path-query-detail",
            )
        )
    return problems
