"""Record ids are opaque: a value that could steer an upstream URL names no record."""

from __future__ import annotations

import pytest

from runtime.protocol import steers

SAFE = ["rec_1", "42", "a.b", "...", "100%", "%", "%zz", "caf\u00e9", "a b", "a+b", "a;b", "~u"]
STEERING = [
    "a/b", "/", ".", "..", "a\\b", "a?b", "a#b", "a\x00", "a\nb", "a\x7f",
    "..%2F..%2Fboards%2Fboard_main", "%2F", "%2f", "%5C", "%3F", "%23", "%00",
    "%252F", "%25252F", "%2e", "%2e%2e", "%2E%2E", "%252e%252e", "..%5C",
]  # fmt: skip


@pytest.mark.parametrize("value", SAFE)
def test_plain_ids_travel(value: str) -> None:
    assert not steers(value)


@pytest.mark.parametrize("value", STEERING)
def test_steering_ids_are_refused(value: str) -> None:
    assert steers(value)
