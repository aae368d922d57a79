"""The UI's context (protocol §8): what the app's own screen shows, by id only.

Agents read it; only the app's UI (an allowed Origin) or the owner's full-reach
credential may write it, since a context steers what an agent looks at next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.protocol import ErrorCode, ProtocolError, Violation, parse_body, ui_caller
from runtime.store import Context

from ._state import RuntimeState

MAX_SELECTED = 100


def context_doc(
    state: RuntimeState, headers: dict[str, str], *, precheck: Callable[[], None]
) -> dict[str, Any]:
    state.security.authorize(headers, None, write=False)
    precheck()
    return _doc(state)


def _doc(state: RuntimeState) -> dict[str, Any]:
    context = state.store.get_context(state.mapping.app.id) or Context(None, ())
    selected = [{"entity": e, "id": i} for e, i in context.selected]
    return {"a2app": True, "view": context.view, "selected": selected}


def set_context(
    state: RuntimeState, headers: dict[str, str], body: bytes, *, precheck: Callable[[], None]
) -> dict[str, Any]:
    """`PUT /api/_a2app/context` `{view, selected}`: replaces the context whole."""
    caller = state.security.authorize(headers, None, write=True)
    precheck()
    owner = caller.kind == "ui" or (
        caller.kind == "grant" and caller.principal == "owner" and _full(state, caller.scopes)
    )
    if not owner:
        raise ProtocolError(
            "insufficient_scope",
            "Only the app's UI or the owner's full-reach credential sets the context.",
            required="*",
        )
    view, pairs = _parse(state, parse_body(body) or {})
    state.store.set_context(state.mapping.app.id, Context(view, pairs))
    return _doc(state)


def _parse(state: RuntimeState, doc: Any) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The context's `view` and `selected`, or every problem with them at once: a UI fixing
    one item per round trip would be told one thing at a time. Undeclared entities alone
    are `unknown_entity` (404); anything else wrong makes it `usage` (400)."""
    problems: list[Violation] = []
    if not isinstance(doc, dict):
        raise ProtocolError("usage", "The context is an object {view, selected}.")
    for name in sorted(set(doc) - {"view", "selected"}):
        problems.append(Violation("usage", name, "only view and selected", doc[name]))
    view = doc.get("view")
    if view is not None and not isinstance(view, str):
        problems.append(Violation("usage", "view", "a name of the UI's screen, or null", view))
    selected = doc.get("selected", [])
    if not isinstance(selected, list) or len(selected) > MAX_SELECTED:
        expected = f"a list of at most {MAX_SELECTED} {{entity, id}} items"
        got = selected if not isinstance(selected, list) else len(selected)
        problems.append(Violation("usage", "selected", expected, got))
        selected = []
    pairs = []
    for i, item in enumerate(selected):
        entity = item.get("entity") if isinstance(item, dict) else None
        record = item.get("id") if isinstance(item, dict) else None
        if not (isinstance(entity, str) and isinstance(record, str) and len(item) == 2):
            expected = "{entity, id}, both strings"
            problems.append(Violation("usage", f"selected.{i}", expected, item))
        elif entity not in state.mapping.entities:
            expected = "a declared entity"
            problems.append(Violation("unknown_entity", f"selected.{i}.entity", expected, entity))
        else:
            pairs.append((entity, record))
    if problems:
        code: ErrorCode = (
            "unknown_entity" if all(p.code == "unknown_entity" for p in problems) else "usage"
        )
        raise ProtocolError(
            code,
            f"The context is refused: {len(problems)} problem(s).",
            violations=[p.as_dict() for p in problems],
        )
    return (view if isinstance(view, str) else None), tuple(pairs)


def _full(state: RuntimeState, scopes: frozenset[str]) -> bool:
    """Every scope of the app: what `*` grants, and what the UI has."""
    return scopes >= ui_caller(state.mapping).scopes
