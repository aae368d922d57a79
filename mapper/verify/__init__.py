"""Verify a mapping against its live upstream: every claim proven by real reads and writes.

    report = await run_verification(mapping, VerifyOptions())
    report.outcome            # "verified", "partly-verified", "refused" or "aborted"
    report.stamp()            # the proof the runtime reads (runtime.mapping.Stamp)

Checks are plain registered functions (`CHECKS`), each proving one claim and
raising a `VerificationFailure` that says whether the foreign API or the mapping
is wrong and what to change; `VerifyError` is the separate family for a mapping
file or a tool that cannot do its job.
"""

from ._command import verify_command as verify_command
from ._context import Ctx as Ctx
from ._context import VerifyOptions as VerifyOptions
from ._correct import corrected_text as corrected_text
from ._failures import Correction as Correction
from ._failures import MappingAtFault as MappingAtFault
from ._failures import NotProven as NotProven
from ._failures import UpstreamAtFault as UpstreamAtFault
from ._failures import VerificationFailure as VerificationFailure
from ._failures import VerifyError as VerifyError
from ._feed_fields import candidates as feed_candidates
from ._junit import junit_xml as junit_xml
from ._ledger import RUN_MARK as RUN_MARK
from ._registry import CHECKS as CHECKS
from ._registry import Subject as Subject
from ._render import render as render
from ._report import CheckResult as CheckResult
from ._report import Report as Report
from ._runner import plan as plan
from ._runner import run_verification as run_verification

__all__ = [
    "CHECKS", "RUN_MARK", "CheckResult", "Correction", "Ctx", "MappingAtFault", "NotProven",
    "Report", "Subject", "UpstreamAtFault", "VerificationFailure", "VerifyError", "VerifyOptions",
    "corrected_text", "feed_candidates", "junit_xml", "plan", "render", "run_verification",
    "verify_command",
]  # fmt: skip
