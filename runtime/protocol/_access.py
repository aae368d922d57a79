"""Who is calling and what they may do (protocol §6 access rendering, §7, §16)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from runtime.mapping import Mapping

CallerKind = Literal["grant", "ui", "anonymous", "none", "schedule"]


def all_scopes(mapping: Mapping) -> tuple[str, ...]:
    """`*` expanded to every concrete scope of this app, sorted."""
    scopes = [f"data:{e}:{verb}" for e in mapping.entities for verb in ("read", "write")]
    scopes += [f"op:{op.name}" for op in mapping.operations]
    return tuple(sorted(scopes))


def anonymous_scopes(mapping: Mapping) -> tuple[str, ...]:
    """Single-user anonymous reach: read everything, write nothing, run read-only ops."""
    scopes = [f"data:{e}:read" for e in mapping.entities]
    scopes += [f"op:{op.name}" for op in mapping.operations if op.read_only]
    return tuple(sorted(scopes))


def expand(mapping: Mapping, granted: Iterable[str]) -> frozenset[str]:
    granted = set(granted)
    if "*" in granted:
        return frozenset(all_scopes(mapping))
    return frozenset(granted)


@dataclass(frozen=True, slots=True)
class Caller:
    kind: CallerKind
    credential_id: str
    agent_name: str | None
    principal: str
    scopes: frozenset[str]

    def can_read(self, entity: str) -> bool:
        return f"data:{entity}:read" in self.scopes

    def can_write(self, entity: str) -> bool:
        return f"data:{entity}:write" in self.scopes

    def can_run(self, operation: str) -> bool:
        return f"op:{operation}" in self.scopes

    @property
    def credentialled(self) -> bool:
        return self.kind in ("grant", "ui")


def ui_caller(mapping: Mapping) -> Caller:
    return Caller("ui", "ui", None, "owner", frozenset(all_scopes(mapping)))


def schedule_caller(mapping: Mapping) -> Caller:
    """The runtime itself, calling a scheduled operation: audited as `schedule`, never as
    an agent or the owner's UI."""
    return Caller("schedule", "schedule", None, "schedule", frozenset(all_scopes(mapping)))


def anonymous_caller(mapping: Mapping) -> Caller:
    if mapping.serve.auth_mode == "multi-user":
        return Caller("none", "anonymous", None, "owner", frozenset())
    return Caller("anonymous", "anonymous", None, "owner", frozenset(anonymous_scopes(mapping)))


def grant_caller(
    mapping: Mapping,
    credential_id: str,
    agent_name: str | None,
    principal: str,
    scopes: Iterable[str],
) -> Caller:
    return Caller("grant", credential_id, agent_name, principal, expand(mapping, scopes))


def module_access(mapping: Mapping, module: str, caller: Caller) -> str:
    """`full`, `read-only` or `none` for a module row (protocol §6.1)."""
    entities = mapping.entities_in(module)
    operations = mapping.operations_in(module)
    runnable = [op for op in operations if caller.can_run(op.name)]
    if not entities:
        return "full" if runnable else "none"
    readable = [e for e in entities if caller.can_read(e.name)]
    if not readable and not runnable:
        return "none"
    if all(caller.can_write(e.name) for e in entities) and len(runnable) == len(operations):
        return "full"
    return "read-only"
