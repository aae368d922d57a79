"""The error registry and its type name the same codes; the predicates classify them."""

from __future__ import annotations

from typing import get_args

import pytest

from runtime.protocol import (
    REGISTRY,
    UNREACHABLE_CODES,
    UPSTREAM_CODES,
    ErrorCode,
    ProtocolError,
)


def test_the_type_names_every_registered_code_in_registry_order() -> None:
    assert list(get_args(ErrorCode)) == list(REGISTRY)


def test_an_unregistered_code_is_refused_at_run_time_too() -> None:
    with pytest.raises(KeyError, match="unregistered error code 'not_foud'"):
        ProtocolError("not_foud")  # type: ignore[arg-type]


def test_upstream_codes_are_the_translated_foreign_failures() -> None:
    assert {code for code in REGISTRY if code.startswith("upstream_")} == UPSTREAM_CODES
    assert UNREACHABLE_CODES < UPSTREAM_CODES


@pytest.mark.parametrize("code", list(REGISTRY))
def test_predicates(code: ErrorCode) -> None:
    exc = ProtocolError(code)
    assert exc.is_(code) and exc.is_("usage", code) and not exc.is_()
    assert exc.from_upstream == code.startswith("upstream_")
    assert exc.unreachable == (code in ("upstream_unavailable", "upstream_timeout"))
    assert exc.adding("more").is_(code)
