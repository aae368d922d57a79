"""The verifier's public face is exactly what `__all__` says; the rest stays private."""

from __future__ import annotations

import mapper.verify


def test_all_is_the_public_face() -> None:
    public = {name for name in vars(mapper.verify) if not name.startswith("_")}
    assert sorted(mapper.verify.__all__) == sorted(public)
    assert all(getattr(mapper.verify, name) is not None for name in mapper.verify.__all__)


def test_the_two_failure_families_never_mix() -> None:
    assert issubclass(mapper.verify.VerificationFailure, AssertionError)
    assert not issubclass(mapper.verify.VerifyError, AssertionError)
    assert not issubclass(mapper.verify.VerificationFailure, mapper.verify.VerifyError)
    wrong = {c.wrong for c in (mapper.verify.UpstreamAtFault, mapper.verify.MappingAtFault)}
    assert wrong == {"upstream", "mapping"}


def test_every_failure_says_what_was_disproved() -> None:
    from mapper.verify import _failures

    classes = [
        c for c in vars(_failures).values()
        if isinstance(c, type) and issubclass(c, mapper.verify.VerificationFailure)
        and c not in (mapper.verify.VerificationFailure, mapper.verify.UpstreamAtFault,
                      mapper.verify.MappingAtFault)
    ]  # fmt: skip
    assert len(classes) >= 25
    titles = [c.title for c in classes]
    assert len(set(titles)) == len(titles) and "claim disproved" not in titles
