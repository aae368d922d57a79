"""Which wire codec a field needs: the declaration and the samples weighed together.

    a spec ``integer`` that says it is a time (``format: unix-time``, or a name or
        description of a time) over epoch integers   -> datetime, epoch-seconds|epoch-ms
    a spec ``boolean`` over samples of 0 and 1       -> boolean, int-bool (with a note:
                                                        the samples overrule the spec)
    a spec ``string`` with ``format: decimal``       -> number, decimal-string
    no declaration, a time's name, epoch integers    -> datetime, epoch-seconds|epoch-ms

Samples alone never make a codec from a number: an amount of 1500000000 is an
epoch integer too. The verifier proves each codec by a round trip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._draft import Claim, Ev
from ..live import CODEC_SHOWN

# A time by its name: created, updated_at, expiresAt, timestamp, period_end is not.
_TIME_NAME = re.compile(
    r"(^|[_.])(created|updated|modified|deleted|expires?|timestamp|time|date|ts)$"
    r"|(_at|At|_on|_time|Time|_date|Date)$"
)
_TIME_TEXT = re.compile(r"\b(unix|epoch|timestamp|seconds since|milliseconds since)\b", re.I)
_UNIX_FORMATS = frozenset({"unix-time", "unixtime", "timestamp", "epoch"})
_DECIMAL_FORMATS = frozenset({"decimal"})


@dataclass(frozen=True, slots=True)
class CodecDecision:
    codec: str
    type: str
    evidence: tuple[Ev, ...]
    note: str | None = None


def _is_time(name: str, declared: Claim | None) -> str | None:
    """Why the field reads as a time, or None."""
    if declared is not None and declared.format in _UNIX_FORMATS:
        return f"format: {declared.format}"
    if declared is not None and declared.description and _TIME_TEXT.search(declared.description):
        return "its description says a time"
    if _TIME_NAME.search(name):
        return "its name says a time"
    return None


def choose(name: str, declared: Claim | None, sample: Claim | None) -> CodecDecision | None:
    """The codec of one field, or None when the wire spells the protocol's own type."""
    sampled = sample.codec if sample is not None else None
    shown = Ev("sample", CODEC_SHOWN.get(sampled or ""))
    if declared is not None and declared.type == "string" and declared.format in _DECIMAL_FORMATS:
        if sample is not None and sample.wire not in ("numeric", None):
            return None  # the samples are no decimal text: the declaration is wrong
        evidence = [Ev(declared.source, "format: decimal")]
        if sample is not None:
            evidence.append(Ev("sample", "every value is decimal text"))
        return CodecDecision("decimal-string", "number", tuple(evidence))
    if declared is not None and declared.type == "boolean" and sampled == "int-bool":
        note = f"{declared.source} says boolean; the samples are 0 and 1, read as false and true"
        return CodecDecision("int-bool", "boolean", (Ev(declared.source), shown), note)
    integer = declared is None or (declared.type == "number" and declared.wire == "integer")
    why = _is_time(name, declared) if integer else None
    if why is None:
        return None
    if sampled in ("epoch-seconds", "epoch-ms"):
        spoken = Ev(declared.source if declared else "name", why)
        return CodecDecision(sampled, "datetime", (spoken, shown))
    if sample is None and declared is not None and declared.format in _UNIX_FORMATS:
        # No sample to weigh: the spec's own word. The verifier proves it by a round trip.
        return CodecDecision("epoch-seconds", "datetime", (Ev(declared.source, why),))
    return None
