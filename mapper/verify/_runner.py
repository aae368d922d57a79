"""Run every registered check over a mapping, in phases, cleaning up in a `finally`.

    connect      credentials work (nothing else runs if they do not)
    sweep        records earlier, interrupted runs left behind are deleted
    read         every entity at once: listings, reads by id, stored values, refs
    write        entity groups linked by references side by side; within a group,
                 parents first: create, required, read-only, enums, update, then
                 the filters and sorts of that entity on data that now holds the
                 run's own records
    operations   one at a time
    delete       groups side by side: deletes, delete effects
    cleanup      every record of the run, children first, each delete confirmed

With `--read-only` only connect and read (with filters and sorts) run; every
write claim is listed as not run (by choice: it neither withholds nor lowers the
outcome). Every other claim passes, fails, or is not proven with its reason; an
unproven write, delete or operation is withheld from serving.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol

import httpx

from runtime.mapping import Mapping, Refusal, public_url
from runtime.protocol import ProtocolError
from runtime.upstream import UpstreamClient

from ._catalog import MODULES
from ._context import Ctx, VerifyOptions
from ._failures import (
    Excluded,
    Learned,
    NotAClaim,
    NotProven,
    NotRouted,
    UpstreamMisbehaved,
    VerificationFailure,
    VerifyError,
)
from ._graph import components, parents_first
from ._ledger import Ledger, new_run_id
from ._registry import CHECKS, CheckSpec, Phase, Subject
from ._report import CheckResult, Finding, Outcome, Report
from ._wire import Recorder, evidence, last, scoped

MAX_TIMEOUTS = 3
OUTSIDE = "not verified: outside --scope"
# The scopes an unproven claim withholds from serving (see `_result`).
WITHHELD_UNPROVEN = ("writes", "operation")
# Seconds between the tries of a check the upstream answered unavailable while alone.
SOLO_PAUSES = (1.0, 3.0)
# Seconds a run waits in all, as rate-limit answers ask (429 with Retry-After), before
# the claims still refused so are reported not proven instead of waited for.
RATE_LIMIT_BUDGET = 60.0
# And each check is asked again at most this often.
RATE_LIMIT_TRIES = 4
# A note marking a check the upstream answered 429 (see `run_paced`).
_RATE_LIMITED = "upstream_rate_limited"
assert MODULES, "the checks register on import"
Item = tuple[int, CheckSpec, Subject]


class Progress(Protocol):
    def start(self, app: str, total: int) -> None: ...
    def advance(self, result: CheckResult) -> None: ...
    def stop(self) -> None: ...


class _Runner:
    def __init__(self, ctx: Ctx, plan: list[Item], progress: Progress | None) -> None:
        self.ctx = ctx
        self.plan = plan
        self.progress = progress
        self.results: dict[int, CheckResult] = {}
        # What the run saw where the mapping makes no claim (`Learned`)
        self.learned: list[Finding] = []
        self.no_claim: set[int] = set()
        self.aborted: str | None = None
        self.timeouts = 0
        self.timings: dict[str, float] = {}
        # An upstream that fails under concurrent checks (503, dropped connections, as
        # SQLite-backed servers do) is then checked one check at a time.
        self.alone = asyncio.Lock()
        self.idle = asyncio.Condition()
        self.running = 0
        self.serial = False
        self.solo = False
        self.last_try = False
        # Rate limits: seconds waited so far, and the wait the last 429 asked for
        self.waited = 0.0
        self.retry_after = 0.0

    def items(self, phase: Phase, entity: str | None = None) -> list[Item]:
        return [
            item
            for item in self.plan
            if item[1].phase == phase and (entity is None or item[2].entity == entity)
        ]

    def record(self, index: int, result: CheckResult) -> None:
        self.results[index] = result
        if self.progress is not None:
            self.progress.advance(result)

    def skip(self, items: Iterable[Item], reason: str, *, excluded: bool = False) -> None:
        for index, spec, subject in items:
            if index not in self.results and index not in self.no_claim:
                self.record(
                    index, _result(spec, subject, "unproven", note=reason, excluded=excluded)
                )

    async def run_items(self, items: Iterable[Item]) -> None:
        for index, spec, subject in items:
            if index in self.results:
                continue
            if self.aborted is not None:
                self.skip([(index, spec, subject)], f"not run: {self.aborted}")
                continue
            result = await self.run_paced(spec, subject)
            if result is None:
                self.no_claim.add(index)  # `NotAClaim`: nothing to report
                continue
            self.record(index, result)
            if spec.writes and subject.entity:
                self.ctx.changed(self.ctx.entity(subject.entity))

    async def run_paced(self, spec: CheckSpec, subject: Subject) -> CheckResult | None:
        """A check, tried again after the wait a rate-limit answer asks for, within the
        run's budget (`RATE_LIMIT_BUDGET`); from the first such answer on, checks run one
        at a time. Out of budget: not proven (rate-limited), withheld, and nobody's fault."""
        result = await self.run_alone_if_busy(spec, subject)
        tries = 1
        while result is not None and result.note == _RATE_LIMITED:
            wait = min(self.retry_after, RATE_LIMIT_BUDGET - self.waited)
            if wait < self.retry_after or tries >= RATE_LIMIT_TRIES or self.aborted is not None:
                return dataclasses.replace(
                    result,
                    note=f"not proven: upstream rate-limited (it asked to wait "
                    f"{self.retry_after:g} s; {self.waited:.0f} s of the run's "
                    f"{RATE_LIMIT_BUDGET:g} s for waiting spent); withheld from serving",
                )
            self.serial = True
            self.waited += wait
            await asyncio.sleep(wait)
            result = await self.run_alone_if_busy(spec, subject)
            tries += 1
        return result

    async def run_alone_if_busy(self, spec: CheckSpec, subject: Subject) -> CheckResult | None:
        """A check; when the upstream fails it for being unavailable while other checks
        run, it runs again alone once they are done, and every later check waits its turn."""
        if not self.serial:
            self.running += 1
            try:
                result = await self.run_one(spec, subject)
            finally:
                self.running -= 1
                async with self.idle:
                    self.idle.notify_all()
            if result is None or result.note != "upstream_unavailable":
                return result
            self.serial = True
        async with self.alone:
            async with self.idle:
                await self.idle.wait_for(lambda: self.running == 0)
            self.solo = True
            try:
                for pause in SOLO_PAUSES:
                    # Busy alone too (a lock held by the upstream's own work): it said
                    # to try later, so it is tried again after a pause.
                    result = await self.run_one(spec, subject)
                    if (
                        result is None
                        or result.note != "upstream_unavailable"
                        or self.aborted is not None
                    ):
                        return result
                    await asyncio.sleep(pause)
                self.last_try = True
                return await self.run_one(spec, subject)
            finally:
                self.solo = self.last_try = False

    async def run_one(self, spec: CheckSpec, subject: Subject) -> CheckResult | None:
        started = time.perf_counter()

        def done(
            outcome: Outcome, note: str | None, failure: VerificationFailure | None = None,
            *, narrow: tuple[str, tuple[str, ...]] | None = None, withheld: bool | None = None,
            excluded: bool = False, about: str | None = None, covered_by: str | None = None,
        ) -> CheckResult:  # fmt: skip
            seconds = time.perf_counter() - started
            return _result(spec, subject, outcome, seconds, note=note, failure=failure,
                           narrow=narrow or (failure.narrow if failure else None),
                           withheld=withheld, excluded=excluded, about=about,
                           covered_by=covered_by)  # fmt: skip

        missing = self.ctx.missing_paths
        if subject.entity in missing and spec.name != "list_walks":
            return done("unproven", _missing_path(subject.entity, missing[subject.entity]))
        with scoped():
            try:
                note = await spec.run(self.ctx, subject)
            except Learned as seen:
                self.learned.append(Finding(subject.claim, seen.reason, seen.corrections))
                return None
            except NotAClaim:
                return None
            except Excluded as skip:
                return done("unproven", skip.reason, excluded=True)
            except NotProven as skip:
                narrow = (skip.op, ()) if skip.op else None
                # A route the upstream lacks is withheld whatever its scope (a filter
                # so is evaluated here).
                withheld = True if isinstance(skip, NotRouted) else None
                covered = self._failed(skip.covered_by, subject.entity)
                if covered:
                    withheld = False  # that failure withholds what this claim covers
                return done(
                    "unproven", skip.reason, narrow=narrow, about=skip.entity, withheld=withheld,
                    covered_by=skip.covered_by if covered else None,
                )  # fmt: skip
            except VerificationFailure as failure:
                return done("failed", failure.title, failure)
            except VerifyError as exc:
                return done("error", f"{type(exc).__name__}: {exc}")
            except ProtocolError as exc:
                if exc.is_("upstream_rate_limited"):
                    # Nobody's fault: it said when to ask again (see `run_paced`).
                    self.retry_after = float(exc.extra.get("retryAfterSeconds") or 0)
                    return done("unproven", _RATE_LIMITED, withheld=True)
                answered = last()
                hit = next(
                    (e for e, path in missing.items()
                     if answered is not None and answered.status == 404
                     and path.rstrip("/") + "/" in answered.target.split("?")[0] + "/"),
                    None,
                )  # fmt: skip
                if hit is not None:
                    # It met the 404 of an entity whose path is wrong: that one failure
                    # says it, once.
                    return done("unproven", _missing_path(hit, missing[hit]))
                if not exc.from_upstream:
                    # The runtime refused our own call (say, a write the mapping does not
                    # offer): the tool or the mapping is wrong, not the upstream.
                    return done("error", f"{exc.code}: {exc.message}")
                return done("failed", exc.code, self._upstream_failed(spec, exc))
            except Exception as exc:  # a bug in a check must not leave records behind
                return done("error", f"the verifier failed: {type(exc).__name__}: {exc}")
        return done("passed", note)

    def _failed(self, claim: str | None, entity: str | None) -> bool:
        """Whether `claim`, a write claim of `entity` itself, has failed in this run."""
        if claim is None or entity is None or not claim.startswith(f"entities.{entity}.write."):
            return False
        return any(r.claim == claim and r.outcome == "failed" for r in self.results.values())

    def _upstream_failed(self, spec: CheckSpec, exc: ProtocolError) -> VerificationFailure:
        if exc.is_("upstream_unavailable") and self.last_try:
            # Unavailable even alone, after pauses (see `run_alone_if_busy`).
            self.aborted = f"the upstream is unreachable ({exc.message})"
        elif exc.is_("upstream_timeout"):
            self.timeouts += 1
            if self.timeouts >= MAX_TIMEOUTS or spec.phase == "connect":
                self.aborted = f"the upstream stopped answering in time ({exc.message})"
        return UpstreamMisbehaved(
            exc.message,
            fix="none in the mapping, unless the answer shows a wrong path or shape",
            **evidence(),
        )

    async def run(self) -> None:
        ctx = self.ctx
        with self.timed("connect"):
            await self.run_items(self.items("connect"))
        if self.aborted is not None or ctx.credentials_refused:
            self.skip(
                self.plan, f"not run: {self.aborted or 'the upstream refused the credentials'}"
            )
            return
        names = [n for n in parents_first(ctx.mapping) if any(i[2].entity == n for i in self.plan)]
        order = list(reversed(parents_first(ctx.mapping)))
        writes = not ctx.options.read_only
        groups = components(ctx.mapping, names)
        interrupted = False
        try:
            if writes:
                with self.timed("sweep"):
                    await ctx.ledger.sweep(ctx.run_id, order, lease=ctx.options.sweep_after)
            reads: tuple[Phase, ...] = ("read",) if writes else ("read", "query")
            with self.timed("read"):
                await asyncio.gather(*(self._entity(n, reads) for n in names))
            if writes:
                with self.timed("write+query"):
                    await asyncio.gather(*(self._group(g, ("write", "query")) for g in groups))
            with self.timed("operations"):
                await self.run_items(self.items("operations"))
            if writes:
                with self.timed("delete"):
                    await asyncio.gather(*(self._group(g, ("delete",)) for g in groups))
        except asyncio.CancelledError:
            interrupted = True
            raise
        finally:
            if writes:
                with self.timed("cleanup"):
                    await ctx.ledger.cleanup(order)
                    await ctx.ledger.sweep_side_effects(order)
                    if interrupted or ctx.uncertain:
                        # A create in flight when the run was stopped, or answered in a
                        # way that named no record, may have landed: find it by this
                        # run's own marker.
                        await ctx.ledger.sweep(ctx.run_id, order, own=True)
        self.skip(self.plan, "not run")

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = time.perf_counter() - started

    async def _entity(self, name: str, phases: tuple[Phase, ...]) -> None:
        for phase in phases:
            await self.run_items(self.items(phase, name))

    async def _group(self, names: list[str], phases: tuple[Phase, ...]) -> None:
        for name in names:
            await self._entity(name, phases)


def _missing_path(entity: str, path: str) -> str:
    return f"not run: the upstream answers 404 at {path} (see entities.{entity}.list)"


def _result(
    spec: CheckSpec,
    subject: Subject,
    outcome: Outcome,
    seconds: float = 0.0,
    *,
    note: str | None = None,
    failure: VerificationFailure | None = None,
    narrow: tuple[str, tuple[str, ...]] | None = None,
    withheld: bool | None = None,
    excluded: bool = False,
    about: str | None = None,
    covered_by: str | None = None,
) -> CheckResult:
    if withheld is None:
        # What could not be proven is not served: a write, a delete, an operation. A read
        # claim withholds nothing (an unproven pushdown is evaluated here anyway), nor
        # does what the run chose not to run.
        withheld = outcome == "unproven" and not excluded and spec.withholds in WITHHELD_UNPROVEN
    return CheckResult(
        spec.name, subject.claim, subject.text, spec.phase, subject.entity,
        outcome, seconds, note, failure,
        spec.withholds, subject.field, subject.op, subject.operation, narrow, withheld, excluded,
        about, covered_by,
    )  # fmt: skip


def plan(mapping: Mapping, options: VerifyOptions) -> list[Item]:
    """Every (check, subject) pair this run covers, in run order."""
    items: list[Item] = []
    for spec in CHECKS:
        for subject in spec.subjects(mapping):
            chosen = options.chosen
            if chosen and subject.entity is not None and subject.entity not in chosen:
                continue
            if chosen and spec.phase == "operations" and subject.entity is None:
                continue
            items.append((len(items), spec, subject))
    return items


async def run_verification(
    mapping: Mapping,
    options: VerifyOptions,
    *,
    mapping_file: str = "",
    transport: httpx.AsyncBaseTransport | None = None,
    progress: Progress | None = None,
) -> Report:
    """Verify `mapping` against its live upstream; the report says what was proven."""
    run_id = new_run_id()
    recorder = Recorder(mapping, transport)
    client = UpstreamClient.for_mapping(mapping, transport=recorder)
    ctx = Ctx(mapping, client, recorder, options, run_id, Ledger(mapping, client))
    items = plan(mapping, options)
    runner = _Runner(ctx, items, progress)
    started = dt.datetime.now(dt.UTC)
    clock = time.perf_counter()
    if progress is not None:
        progress.start(mapping.app.id, len(items))
    try:
        async with client:
            if options.read_only:
                runner.skip(
                    [i for i in items if i[1].writes], "not run: --read-only", excluded=True
                )
            await runner.run()
    finally:
        if progress is not None:
            progress.stop()
    planned = {subject.operation for _, _, subject in items}
    unverified = [
        Refusal(f"entities.{name}", "outside_scope", "reads", name, reason=OUTSIDE)
        for name in mapping.entities
        if options.scope and name not in options.scope
    ] + [
        Refusal(f"operations.{op.name}", "outside_scope", "operation", operation=op.name,
                reason=OUTSIDE)
        for op in mapping.operations
        if options.scope and op.name not in planned
    ]  # fmt: skip
    return Report(
        mapping_file=mapping_file,
        app=mapping.app.id,
        content_hash=mapping.content_hash,
        upstream=public_url(mapping.upstream.base_url),
        run_id=run_id,
        read_only=options.read_only,
        only=options.only,
        started=started,
        seconds=time.perf_counter() - clock,
        results=[runner.results[i] for i in sorted(runner.results)],
        learned=runner.learned,
        proven_filters=ctx.proven_filters,
        proven_sorts=ctx.proven_sorts,
        proven_feed=ctx.proven_feed,
        proven_etags=ctx.proven_etags,
        requests=dict(sorted(recorder.counts.items())),
        hosts=sorted(recorder.hosts),
        removed=ctx.ledger.removed,
        swept=dict(ctx.ledger.swept),
        running=dict(ctx.ledger.running),
        side_effects=dict(ctx.ledger.side_effects),
        leftovers=list(ctx.ledger.leftovers),
        aborted=runner.aborted,
        timings=runner.timings,
        unverified=unverified,
    )
