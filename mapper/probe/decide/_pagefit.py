"""Whether each list can be read whole with the one pagination the mapping states.

Pagination is upstream-wide. A list that takes paging parameters the mapping
cannot walk would be read as its first page only, a silently truncated answer,
so that list is refused (``paging: …``) rather than mapped. A list that takes
none while the mapping sends some is kept, with a note for review.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from .._draft import Param
from .._errors import Finding
from ..live import dig, size_cap
from ._entities import Source
from ._paging import CURSOR_NAMES, OFFSET_NAMES, PAGE_NAMES, SIZE_NAMES, Paging

# Query parameters taken as paging ones ("size", "start" are too often fields of their own).
PAGING_NAMES = frozenset(
    {*PAGE_NAMES, *SIZE_NAMES, *OFFSET_NAMES, *CURSOR_NAMES, "before", "ending_before"}
) - {"size", "start"}
_PARAM_OF_STYLE = {"page": "page", "offset": "offset", "cursor": "cursor"}


def misfit(pagination: Mapping[str, Any], params: Collection[str]) -> str | None:
    """Why a list with these query parameters cannot be walked; None when it can."""
    taken = sorted(n for n in params if n in PAGING_NAMES)
    style = str(pagination.get("style", "none"))
    if not taken:
        return None
    if style == "none":
        return (f"the list takes paging parameters ({', '.join(taken)}) and the mapping's "
                "pagination is none: one request would answer its first page only")  # fmt: skip
    wanted = pagination.get(_PARAM_OF_STYLE.get(style, ""))
    if wanted and wanted not in params:
        return (f"the list pages with {', '.join(taken)}, not with {wanted} "
                f"(upstream.pagination, style {style})")  # fmt: skip
    return None


def unpaged(pagination: Mapping[str, Any], params: Collection[str]) -> str | None:
    """A note when the mapping sends paging parameters this list does not declare."""
    sent = [str(pagination[k]) for k in ("size", "page", "offset") if pagination.get(k)]
    if pagination.get("style", "none") == "none" or any(n in PAGING_NAMES for n in params):
        return None
    if not sent:
        return None
    return f"its list declares no paging parameter; the runtime still sends {', '.join(sent)}"


def refuse(path: str, pagination: Mapping[str, Any], params: Collection[str]) -> Finding | None:
    why = misfit(pagination, params)
    return None if why is None else Finding(path, "paging", why, "GET")


def with_size_cap(
    pagination: dict[str, Any], params: Sequence[Param], notes: list[str]
) -> dict[str, Any]:
    """`pagination` with ``maxSize`` when the spec bounds its size parameter."""
    size = pagination.get("size")
    if not size or "maxSize" in pagination or pagination.get("style") == "none":
        return pagination
    found = size_cap(params, str(size))
    if found is None:
        return pagination
    notes.append(f"size parameter {size}: at most {found[0]} (spec: {found[1]})")
    return {**pagination, "maxSize": found[0]}


def fit_pages(
    sources: Mapping[str, Source], pagination: Mapping[str, Any]
) -> tuple[dict[str, Finding], list[str]]:
    """Collections refused for their paging (by name), and notes for review."""
    refused: dict[str, Finding] = {}
    notes: list[str] = []
    for name, src in sources.items():
        if src.spec is None or src.spec.list_path is not None:
            continue  # a POST listing carries its own pagination
        params = [p.name for p in src.spec.query]
        if (finding := refuse(src.path, pagination, params)) is not None:
            refused[name] = finding
        elif (note := unpaged(pagination, params)) is not None:
            notes.append(f"entities.{name}: {note}")
    return refused, notes


def refuse_unwalkable(sources: Mapping[str, Source], paging: Paging | None) -> dict[str, Finding]:
    """Lists that show a next page the probe found no way to ask for, by name."""
    if paging is None or paging.refused is None:
        return {}
    refused: dict[str, Finding] = {}
    for name, src in sources.items():
        obs = src.obs
        if obs is None or obs.envelope is None or (src.spec and src.spec.list_path):
            continue
        env, body = obs.envelope, obs.answer.body
        after = dig(body, env.next) if env.next else None
        total = dig(body, env.total) if env.total else None
        counted = isinstance(total, int) and total > len(obs.records)
        if after not in (None, "", False) or counted:
            refused[name] = Finding(src.path, "paging", paging.refused, "GET")
    return refused
