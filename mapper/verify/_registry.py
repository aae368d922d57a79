"""Checks are plain async functions, one claim each, registered with `@CHECKS.register`.

    @CHECKS.register(phase="query", subjects=each_filter)
    async def filter_narrows(ctx: Ctx, subject: Subject) -> str | None:
        ...  # raise a VerificationFailure subclass, or NotProven; return an optional note

`subjects` expands a check over the mapping (every entity, every filter operator,
every enum field, ...); each subject is one claim in the report and the stamp.
Phases order the run: reads before writes, deletes last, so no check observes
another's half-done work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from runtime.mapping import Mapping, WithholdScope

if TYPE_CHECKING:
    from ._context import Ctx

Phase = Literal["connect", "read", "write", "query", "operations", "delete"]
PHASES: tuple[Phase, ...] = ("connect", "read", "write", "query", "operations", "delete")


@dataclass(frozen=True, slots=True)
class Subject:
    """What one claim is about; `claim` is its stable id, `text` the claim in words."""

    claim: str
    text: str
    entity: str | None = None
    field: str | None = None
    op: str | None = None
    operation: str | None = None


CheckFn = Callable[["Ctx", Subject], Awaitable[str | None]]
SubjectsFn = Callable[[Mapping], Iterable[Subject]]


# What a refused claim withholds from serving (runtime.mapping's `Refusal.scope`);
# None for a claim whose refusal leaves nothing proven (the credentials).
Withholds = WithholdScope | None


def default_withholds(phase: Phase, writes: bool) -> Withholds:
    """A check that does not say: writes withhold writes, anything else the whole entity."""
    if phase == "connect":
        return None
    if phase == "operations":
        return "operation"
    return "writes" if writes or phase in ("write", "delete") else "reads"


@dataclass(frozen=True, slots=True)
class CheckSpec:
    name: str
    phase: Phase
    writes: bool
    subjects: SubjectsFn
    run: CheckFn
    doc: str
    withholds: Withholds = None


class Registry:
    def __init__(self) -> None:
        self._checks: dict[str, CheckSpec] = {}

    def register(
        self,
        *,
        phase: Phase,
        subjects: SubjectsFn,
        writes: bool = False,
        withholds: Withholds | Literal["default"] = "default",
    ) -> Callable[[CheckFn], CheckFn]:
        def decorate(fn: CheckFn) -> CheckFn:
            name = fn.__name__
            if name in self._checks:
                raise ValueError(f"check {name!r} is registered twice")
            doc = (fn.__doc__ or name).strip().splitlines()[0]
            scope = default_withholds(phase, writes) if withholds == "default" else withholds
            self._checks[name] = CheckSpec(name, phase, writes, subjects, fn, doc, scope)
            return fn

        return decorate

    def __iter__(self) -> Iterator[CheckSpec]:
        return iter(self._checks.values())

    def __len__(self) -> int:
        return len(self._checks)

    def in_phase(self, phase: Phase) -> list[CheckSpec]:
        return [spec for spec in self._checks.values() if spec.phase == phase]


CHECKS = Registry()
