"""The UI's context (protocol §8): what the app's own screen shows, by id only.

Agents read it; only the app's UI (an allowed Origin) or the owner's full-reach
credential may write it, since a context steers what an agent looks at next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.protocol import ProtocolError, parse_body, ui_caller
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
    doc = parse_body(body) or {}
    unknown = sorted(set(doc) - {"view", "selected"})
    if unknown:
        raise ProtocolError("usage", f"The context takes view and selected; got {unknown}.")
    view = doc.get("view")
    if view is not None and not isinstance(view, str):
        raise ProtocolError("usage", "view is a name of the UI's screen, or null.")
    selected = doc.get("selected", [])
    if not isinstance(selected, list) or len(selected) > MAX_SELECTED:
        raise ProtocolError(
            "usage", f"selected is a list of at most {MAX_SELECTED} {{entity, id}} items."
        )
    pairs = []
    for item in selected:
        entity = item.get("entity") if isinstance(item, dict) else None
        record = item.get("id") if isinstance(item, dict) else None
        if not (isinstance(entity, str) and isinstance(record, str) and len(item) == 2):
            raise ProtocolError("usage", "Each selected item is {entity, id}, both strings.")
        if entity not in state.mapping.entities:
            raise ProtocolError("unknown_entity", f"No entity {entity!r}.")
        pairs.append((entity, record))
    state.store.set_context(state.mapping.app.id, Context(view, tuple(pairs)))
    return _doc(state)


def _full(state: RuntimeState, scopes: frozenset[str]) -> bool:
    """Every scope of the app: what `*` grants, and what the UI has."""
    return scopes >= ui_caller(state.mapping).scopes
