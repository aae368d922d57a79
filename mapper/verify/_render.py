"""The human report: what was proven, and for every refusal the claim, the evidence, the fix."""

from __future__ import annotations

import json

from ._report import CheckResult, Report

# Claims sharing one reason are counted, not listed, past this many.
MANY = 3


def _proven(report: Report) -> list[str]:
    lines = []
    for entity in sorted(set(report.proven_filters) | set(report.proven_sorts)):
        filters = report.proven_filters.get(entity, {})
        parts = [f"{f} {' '.join(ops)}" for f, ops in filters.items()]
        sorts = report.proven_sorts.get(entity, [])
        text = "; ".join(parts) or "no filter"
        lines.append(f"    {entity}: {text}; sort {', '.join(sorts) or 'none'}")
    return lines


def _by_reason(results: list[CheckResult]) -> list[str]:
    """One line per claim, or one per reason that many claims share (every write claim
    of a `--read-only` run)."""
    reasons: dict[str, list[str]] = {}
    for r in results:
        reasons.setdefault(str(r.note), []).append(r.claim)
    lines = []
    for note, claims in reasons.items():
        if len(claims) > MANY:
            lines.append(f"    - {len(claims)} claims: {note} (--json lists them)")
        else:
            lines += [f"    - {claim}: {note}" for claim in claims]
    return lines


# Claims on one field of an entity or one param of an operation, and how lines name
# their owner.
_PER_NAME = {("entities", "fields"): "", ("operations", "params"): "operation "}


def _learned(report: Report) -> list[str]:
    """One line per finding; an attribute seen alike on several fields of one entity
    (`nullable: true`, a null clears it) is one line naming them."""
    grouped: dict[str, list[str]] = {}  # the line -> the fields it names
    for x in report.learned:
        parts = x.claim.split(".")
        kind = tuple(parts[:3:2])
        if len(parts) == 5 and kind in _PER_NAME and len(x.corrections) == 1:
            value = json.dumps(x.corrections[0].value)
            who = _PER_NAME[kind] + parts[1]
            grouped.setdefault(f"{who}: {parts[4]}: {value} ({x.text})", []).append(parts[3])
        else:
            grouped.setdefault(f"{x.claim}: {x.text}", [])
    return [
        f"    - {line}" + (f": {', '.join(names)}" if names else "")
        for line, names in grouped.items()
    ]


def render(report: Report) -> str:
    out = [
        f"a2map verify: {report.app} ({report.mapping_file}) against {report.upstream}"
        + (" [read-only]" if report.read_only else ""),
        f"  {report.count('passed')} passed, {report.count('failed')} failed, "
        f"{report.count('error')} errors, {len(report.unproven)} not proven"
        + (f", {len(report.excluded)} not run by choice" if report.excluded else "")
        + f" in {report.seconds:.1f} s; {sum(report.requests.values())} requests",
    ]
    if report.aborted:
        # One message: every claim after the stop is "not run" for the same reason, and
        # the JSON report lists them.
        out += [
            f"  ABORTED: {report.aborted}",
            f"  nothing else was exercised ({report.count('unproven')} claims not run; "
            "--json lists them)",
            "",
            f"NOT VERIFIED: {report.app}",
        ]
        return "\n".join(out)
    for result in report.failures:
        failure = result.failure
        out.append("")
        if failure is None:
            out.append(f"  ✗ {result.claim}: the verifier could not judge it")
            out.append(f"      claim:    {result.text}")
            out.append(f"      error:    {result.note}")
            continue
        out += [
            f"  ✗ {result.claim}: {failure.title}",
            f"      claim:    {result.text}",
            f"      wrong:    the {failure.wrong}"
            + (" (the foreign API misbehaves)" if failure.wrong == "upstream" else ""),
            f"      why:      {failure.message}",
            f"      request:  {failure.request or '-'}",
            f"      response: {failure.response or '-'}",
            f"      change:   {failure.fix}",
        ]
    if report.unproven:
        out += [
            "",
            "  not proven (a write, delete or operation so is withheld; a filter or sort so "
            "is evaluated here):",
        ]
        out += [
            f"    - {r.claim}: {r.note}" + (" [withheld]" if r.withheld else "")
            for r in report.unproven
        ]
    if report.excluded:
        out += ["", "  not run by choice:"]
        out += _by_reason(report.excluded)
    if report.learned:
        out += ["", "  learned (the mapping says nothing; --write-corrected records them):"]
        out += _learned(report)
    proven = _proven(report)
    if proven:
        out += ["", "  proven pushdowns (the runtime lets the upstream page only for these):"]
        out += proven
    out += ["", f"  cleanup: removed {report.removed} record(s) this run created"]
    if report.swept:
        swept = ", ".join(f"{n} {e}" for e, n in report.swept.items())
        out.append(f"  swept from interrupted earlier runs: {swept}")
    if report.running:
        young = ", ".join(f"{n} {e}" for e, n in report.running.items())
        out.append(f"  left alone, marked by runs that may still be going (--sweep-after): {young}")
    if report.side_effects:
        made = ", ".join(f"{n} {e}" for e, n in report.side_effects.items())
        out.append(f"  removed, made by the upstream in answer to the run's writes: {made}")
    for left in report.leftovers:
        out.append(f"  LEFT BEHIND: {left.entity} {left.id!r}: {left.reason}")
    out.append("")
    verdict = {
        "verified": "VERIFIED",
        "partly-verified": "PARTLY VERIFIED",
        "refused": "REFUSED",
        "aborted": "NOT VERIFIED",
    }
    out.append(f"{verdict[report.outcome]}: {report.app}")
    return "\n".join(out)
