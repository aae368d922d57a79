"""The entity or operation a path names, and the read authorisations the routes ask for."""

from __future__ import annotations

from runtime.mapping import Entity, Operation
from runtime.protocol import Caller, ProtocolError

from ._audit import meter
from ._state import RuntimeState


def entity_named(state: RuntimeState, name: str) -> Entity:
    entity = state.mapping.entities.get(name)
    refused = state.withheld.reads.get(name)
    if entity is None and refused:
        # Withheld by a partial stamp: still unknown here, but the agent learns why.
        raise ProtocolError(
            "unknown_entity",
            f"{name} is not served: `a2map verify` refused it ({'; '.join(refused)}).",
            refusedClaims=list(refused),
        )
    if entity is None:
        raise ProtocolError(
            "unknown_entity",
            f"No entity {name!r}; declared: {', '.join(state.mapping.entities)}.",
        )
    return entity


def operation_named(state: RuntimeState, name: str) -> Operation:
    op = state.mapping.operation(name)
    refused = state.withheld.operations.get(name)
    if op is None and refused:
        raise ProtocolError(
            "unknown_operation",
            f"{name} is not served: {'; '.join(refused)}.",
            refusedClaims=list(refused),
        )
    if op is None:
        names = ", ".join(o.name for o in state.mapping.operations)
        raise ProtocolError("unknown_operation", f"No operation {name!r}; declared: {names}.")
    return op


def authorise_read(state: RuntimeState, headers: dict[str, str], entity: Entity) -> Caller:
    return state.security.authorize(headers, f"data:{entity.name}:read", write=False)


def authorise(state: RuntimeState, headers: dict[str, str]) -> Caller:
    """A credential (or the anonymous reach) for a route that needs no scope."""
    return state.security.authorize(headers, None, write=False)


def gate(state: RuntimeState, headers: dict[str, str], klass: str, *, audited: bool) -> None:
    """The rate gate of a route of class `klass` (§18)."""
    meter(state, headers, klass, audited=audited)
