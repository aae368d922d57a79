"""Checks are plain async functions, one claim each, registered with `@CHECKS.register`.

    @CHECKS.register(phase="query", subjects=each_filter)
    async def filter_narrows(ctx: Ctx, subject: Subject) -> str | None:
        ...  # raise a VerificationFailure subclass, or Skip; return an optional note

`subjects` expands a check over the mapping (every entity, every filter operator,
every enum field, ...); each subject is one claim in the report and the stamp.
Phases order the run: reads before writes, deletes last, so no check observes
another's half-done work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from runtime.mapping import Mapping

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


@dataclass(frozen=True, slots=True)
class CheckSpec:
    name: str
    phase: Phase
    writes: bool
    subjects: SubjectsFn
    run: CheckFn
    doc: str


class Registry:
    def __init__(self) -> None:
        self._checks: dict[str, CheckSpec] = {}

    def register(
        self, *, phase: Phase, subjects: SubjectsFn, writes: bool = False
    ) -> Callable[[CheckFn], CheckFn]:
        def decorate(fn: CheckFn) -> CheckFn:
            name = fn.__name__
            if name in self._checks:
                raise ValueError(f"check {name!r} is registered twice")
            doc = (fn.__doc__ or name).strip().splitlines()[0]
            self._checks[name] = CheckSpec(name, phase, writes, subjects, fn, doc)
            return fn

        return decorate

    def __iter__(self) -> Iterator[CheckSpec]:
        return iter(self._checks.values())

    def __len__(self) -> int:
        return len(self._checks)

    def in_phase(self, phase: Phase) -> list[CheckSpec]:
        return [spec for spec in self._checks.values() if spec.phase == phase]


CHECKS = Registry()
