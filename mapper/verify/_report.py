"""The outcome of one verification: every claim with its result, as data, JSON and a stamp."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal

from runtime.mapping import Refusal, Stamp, StampCheck, WithholdScope

from ._failures import Correction, VerificationFailure
from ._ledger import Leftover

# "unproven": the claim could not be exercised; it is reported as not proven, with why.
Outcome = Literal["passed", "failed", "unproven", "error"]
RunOutcome = Literal["verified", "partly-verified", "refused", "aborted"]
VERIFIER = "a2map verify"


def verifier_version() -> str:
    try:
        return metadata.version("a2app-anystack")
    except metadata.PackageNotFoundError:
        return "0+unknown"


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: str
    claim: str
    text: str
    phase: str
    entity: str | None
    outcome: Outcome
    seconds: float = 0.0
    note: str | None = None
    failure: VerificationFailure | None = None
    # what a refusal of this claim withholds from serving, and what it is about
    withholds: WithholdScope | None = None
    field: str | None = None
    op: str | None = None
    operation: str | None = None
    # Less than the whole scope is withheld: one write, and of it only these fields.
    narrow: tuple[str, tuple[str, ...]] | None = None
    # Not proven, and withheld from serving (a write, delete or operation; see the runner).
    withheld: bool = False
    # Not run by the run's own choice (--read-only, a destructive operation): listed apart.
    excluded: bool = False
    # The entity whose write an unproven claim withholds, when not its own (a target's
    # delete whose effect on this entity was not seen)
    about: str | None = None
    # A failed claim of the same entity that explains why this one is not proven
    covered_by: str | None = None

    @property
    def unproven(self) -> bool:
        """Not proven, and not by choice: the run is at best partly verified."""
        return self.outcome == "unproven" and not self.excluded

    def refusals(self) -> list[Refusal]:
        """The claim as a partial stamp records it: one refusal per withheld field, else
        one; none when it passed or withholds nothing."""
        refused = self.outcome in ("failed", "error") or self.withheld
        if not refused or self.withholds is None:
            return []
        pairs: list[tuple[str | None, str | None]]
        if self.narrow is not None:
            op, fields = self.narrow
            pairs = [(name, op) for name in (fields or (None,))]
        elif self.outcome == "unproven" and self.field is not None and self.op is None:
            # A field's claim left unproven withholds the writes that send that field,
            # not every write of the entity.
            pairs = [(self.field, "create"), (self.field, "update")]
        else:
            pairs = [(self.field, self.op)]
        return [self._refusal(name, op) for name, op in pairs]

    def _refusal(self, name: str | None, op: str | None) -> Refusal:
        assert self.withholds is not None
        return Refusal(
            self.claim, self.check, self.withholds,
            self.about or self.entity, name, op, self.operation, self.note,
            unproven=self.outcome == "unproven",
        )  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "check": self.check,
            "text": self.text,
            "phase": self.phase,
            "entity": self.entity,
            "outcome": self.outcome,
            "withheld": self.withheld,
            "notRun": self.excluded,
            "coveredBy": self.covered_by,
            "seconds": round(self.seconds, 3),
            "note": self.note,
            "failure": None if self.failure is None else self.failure.as_dict(),
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """What the run saw the upstream do where the mapping makes no claim: no claim is
    passed by it, and `--write-corrected` records it."""

    claim: str
    text: str
    corrections: tuple[Correction, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "text": self.text,
            "corrections": [c.as_dict() for c in self.corrections],
        }


@dataclass
class Report:
    mapping_file: str
    app: str
    content_hash: str
    upstream: str
    run_id: str
    read_only: bool
    only: tuple[str, ...]
    started: dt.datetime
    seconds: float = 0.0
    results: list[CheckResult] = field(default_factory=list)
    learned: list[Finding] = field(default_factory=list)
    proven_filters: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)
    proven_sorts: Mapping[str, list[str]] = field(default_factory=dict)
    proven_feed: Mapping[str, str] = field(default_factory=dict)
    proven_etags: list[str] = field(default_factory=list)
    requests: Mapping[str, int] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    removed: int = 0
    swept: Mapping[str, int] = field(default_factory=dict)
    # Records of other runs left alone: they started less than the lease ago
    running: Mapping[str, int] = field(default_factory=dict)
    # Records the upstream made in answer to the run's writes, removed with them
    side_effects: Mapping[str, int] = field(default_factory=dict)
    leftovers: list[Leftover] = field(default_factory=list)
    aborted: str | None = None
    timings: Mapping[str, float] = field(default_factory=dict)
    # With `--scope`: every entity and operation outside it, withheld as not verified
    unverified: list[Refusal] = field(default_factory=list)
    stamp_file: str | None = None
    version: str = field(default_factory=verifier_version)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.outcome in ("failed", "error")]

    @property
    def unproven(self) -> list[CheckResult]:
        """The claims not proven, not counting those the run chose not to run."""
        return [r for r in self.results if r.unproven]

    @property
    def excluded(self) -> list[CheckResult]:
        return [r for r in self.results if r.outcome == "unproven" and r.excluded]

    @property
    def outcome(self) -> RunOutcome:
        if self.aborted is not None:
            return "aborted"
        if self.failures:
            return "refused"
        return "partly-verified" if self.unproven else "verified"

    @property
    def stampable(self) -> bool:
        """A run with no failure is a proof the runtime may rely on: whole, or for the
        part it proved, the unproven writes and operations withheld (with `--scope`, a
        proof of that part, the rest withheld as not verified)."""
        return self.outcome in ("verified", "partly-verified") and not self.only

    @property
    def refusals(self) -> list[Refusal]:
        """What the stamp withholds: refused claims, routes the upstream does not
        implement, and with `--scope` everything outside it."""
        return [r for x in self.results for r in x.refusals()] + list(self.unverified)

    @property
    def partly_stampable(self) -> bool:
        """A refused whole run whose every failure withholds a part (not the credentials).

        Whether any part is left to serve is for the caller, who holds the mapping
        (`runtime.mapping.withhold`).
        """
        return (
            self.outcome == "refused" and not self.only and all(x.refusals() for x in self.failures)
        )

    def stamp(self) -> Stamp:
        return Stamp(
            content_hash=self.content_hash,
            app=self.app,
            upstream=self.upstream,
            verified_at=self.started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            verifier_version=self.version,
            verifier_name=VERIFIER,
            read_only=self.read_only,
            checks=tuple(StampCheck(r.claim, r.check, r.outcome, r.note) for r in self.results),
            proven_filters={
                e: {f: tuple(ops) for f, ops in fs.items()} for e, fs in self.proven_filters.items()
            },
            proven_sorts={e: tuple(fs) for e, fs in self.proven_sorts.items()},
            proven_feed=dict(self.proven_feed),
            proven_etags=tuple(self.proven_etags),
            refused=tuple(self.refusals),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "verifier": {"name": VERIFIER, "version": self.version},
            "mapping": {
                "file": self.mapping_file,
                "app": self.app,
                "contentHash": self.content_hash,
            },
            "upstream": self.upstream,
            "runId": self.run_id,
            "readOnly": self.read_only,
            "only": list(self.only),
            "startedAt": self.started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seconds": round(self.seconds, 3),
            "secondsByStage": {k: round(v, 3) for k, v in self.timings.items()},
            "outcome": self.outcome,
            "aborted": self.aborted,
            "summary": {
                "passed": self.count("passed"),
                "failed": self.count("failed"),
                "notProven": len(self.unproven),
                "notRun": len(self.excluded),
                "error": self.count("error"),
            },
            "checks": [r.as_dict() for r in self.results],
            "learned": [x.as_dict() for x in self.learned],
            "proven": {
                "filters": {e: dict(fs) for e, fs in self.proven_filters.items()},
                "sorts": dict(self.proven_sorts),
                "feedModified": dict(self.proven_feed),
                "feedEtag": list(self.proven_etags),
            },
            "requests": {"total": sum(self.requests.values()), "byEntity": dict(self.requests)},
            "hostsContacted": self.hosts,
            "cleanup": {
                "removed": self.removed,
                "sweptFromEarlierRuns": dict(self.swept),
                "leftForRecentRuns": dict(self.running),
                "sideEffectsRemoved": dict(self.side_effects),
                "leftovers": [x.as_dict() for x in self.leftovers],
            },
            "stamp": self.stamp_file,
            "refused": [dataclasses.asdict(r) for r in self.refusals],
        }
