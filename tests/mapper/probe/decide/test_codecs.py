"""Codec decisions: the declaration and the samples weighed together, with evidence."""

from __future__ import annotations

import pytest

from mapper.probe._draft import Claim, Ev
from mapper.probe.decide._merge import FieldInput, merge
from mapper.probe.live import sample_claims


def sample_claim(values: list[object]) -> Claim | None:
    """What the prober's samples say of one field holding these values."""
    return sample_claims([{"f": v} for v in values], False).get("f")


SECONDS = [1796234734, 1796234800, 1796234900]
MILLIS = [1796234734123, 1796234800000]
SPEC_INT = Claim("openapi", type="number", wire="integer")
UNIX = Claim("openapi", type="number", wire="integer", format="unix-time",
             description="Time at which the object was created. Measured in seconds since "
             "the Unix epoch.")  # fmt: skip
SPEC_BOOL = Claim("openapi", type="boolean", wire="boolean")
# A metadata API's boolean column without a cast (Directus without `cast-boolean`).
META_BOOL = Claim("metadata", type="boolean", wire="boolean")
SPEC_DECIMAL = Claim("openapi", type="string", wire="string", format="decimal")

CASES = [
    # name, field, spec, sampled values -> (type, codec)
    ("unix-time spec over epoch seconds", "created", UNIX, SECONDS, ("datetime", "epoch-seconds")),
    ("unix-time spec, no sample", "created", UNIX, None, ("datetime", "epoch-seconds")),
    ("a time's name over epoch milliseconds", "updatedAt", SPEC_INT, MILLIS,
     ("datetime", "epoch-ms")),
    ("no spec, a time's name, epoch seconds", "expires_at", None, SECONDS,
     ("datetime", "epoch-seconds")),
    ("an amount in the epoch range stays a number", "amount", SPEC_INT, SECONDS,
     ("number", None)),
    ("no spec, epoch-like integers, no time's name", "balance", None, SECONDS, ("number", None)),
    ("a time's name over small integers stays a number", "created", SPEC_INT, [5, 6],
     ("number", None)),
    ("unix-time spec over ISO text: samples win, no codec", "created", UNIX,
     ["2026-12-02T18:05:34Z"], ("number", None)),
    ("boolean spec over 0/1", "done", SPEC_BOOL, [0, 1, 1], ("boolean", "int-bool")),
    ("metadata boolean over 0/1", "archived", META_BOOL, [1, 0], ("boolean", "int-bool")),
    ("boolean spec over booleans", "done", SPEC_BOOL, [True, False], ("boolean", None)),
    ("no spec, 0/1 stays a number", "done", None, [0, 1], ("number", None)),
    ("decimal spec over decimal text", "price", SPEC_DECIMAL, ["1.50", "20.00"],
     ("number", "decimal-string")),
    ("decimal spec, no sample", "price", SPEC_DECIMAL, None, ("number", "decimal-string")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "spec", "values", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_codec_decisions(
    name: str, spec: Claim | None, values: list[object] | None, expected: tuple[str, str | None]
) -> None:
    sample = sample_claim(values) if values is not None else None
    draft = merge(FieldInput(name=name, source=name, spec=spec, sample=sample,
                             sampled=values is not None, present=values is not None))  # fmt: skip
    assert draft is not None
    assert (draft.type, draft.codec) == expected


def test_a_boolean_over_0_1_says_the_samples_overrule_the_spec_and_keeps_evidence() -> None:
    draft = merge(FieldInput("done", "done", spec=SPEC_BOOL, sample=sample_claim([0, 1]),
                             sampled=True, present=True))  # fmt: skip
    assert draft is not None
    assert "openapi says boolean; the samples are 0 and 1" in "; ".join(draft.notes)
    assert Ev("sample", "every value is 0 or 1") in draft.evidence
    assert not any(n.startswith("disagree") for n in draft.notes)


def test_an_epoch_codec_names_what_said_time_and_what_the_samples_show() -> None:
    draft = merge(FieldInput("created", "created", spec=UNIX, sample=sample_claim(SECONDS),
                             sampled=True, present=True))  # fmt: skip
    assert draft is not None
    assert Ev("openapi", "format: unix-time") in draft.evidence
    assert Ev("sample", "every value is an integer of epoch seconds") in draft.evidence
