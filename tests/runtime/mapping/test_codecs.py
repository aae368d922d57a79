"""Value codecs: each decodes the wire's spelling and encodes it back, and passes what it
does not recognise through unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.mapping import CODEC_TYPES, CODECS, decode_value, encode_value

ROUND_TRIPS = [
    ("epoch-seconds", 1796234734, "2026-12-02T18:05:34Z"),
    ("epoch-seconds", 0, "1970-01-01T00:00:00Z"),
    ("epoch-seconds", -86400, "1969-12-31T00:00:00Z"),
    ("epoch-ms", 1796234734123, "2026-12-02T18:05:34.123Z"),
    ("epoch-ms", 1796234734000, "2026-12-02T18:05:34.000Z"),
    ("decimal-string", "1.5", 1.5),
    ("decimal-string", "12", 12),
    ("decimal-string", "-0.25", -0.25),
    ("decimal-string", "90071992547409931", 90071992547409931),
    ("int-bool", 1, True),
    ("int-bool", 0, False),
]


@pytest.mark.parametrize(("codec", "wire", "protocol"), ROUND_TRIPS)
def test_each_codec_round_trips(codec: str, wire: Any, protocol: Any) -> None:
    assert decode_value(codec, wire) == protocol
    assert encode_value(codec, protocol) == wire
    assert type(encode_value(codec, protocol)) is type(wire)


@pytest.mark.parametrize(
    ("codec", "wire", "protocol"),
    [
        ("decimal-string", "1.50", 1.5),  # DRF keeps the field's places
        ("int-bool", "1", True),
        ("epoch-seconds", "1796234734", "2026-12-02T18:05:34Z"),
    ],
)
def test_other_wire_spellings_decode_too(codec: str, wire: Any, protocol: Any) -> None:
    assert decode_value(codec, wire) == protocol


@pytest.mark.parametrize(
    ("codec", "protocol", "wire"),
    [
        ("epoch-seconds", "2026-12-02T19:05:34+01:00", 1796234734),
        ("epoch-seconds", "2026-12-02T18:05:34.999Z", 1796234734),  # whole seconds, down
        ("epoch-seconds", "2026-12-02", 1796169600),  # a day is its midnight UTC
        ("epoch-seconds", "2026-12-02T18:05:34", 1796234734),  # a bare time is UTC
        ("epoch-ms", "2026-12-02T18:05:34.1234Z", 1796234734123),
    ],
)
def test_datetimes_in_other_forms_encode_to_the_same_instant(
    codec: str, protocol: str, wire: int
) -> None:
    assert encode_value(codec, protocol) == wire


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("value", [None, "not a value", [1], {"a": 1}, True, 2.5])
def test_what_a_codec_does_not_recognise_passes_through(codec: str, value: Any) -> None:
    expected_decode = value
    expected_encode = value
    if codec == "int-bool" and value is True:
        expected_encode = 1
    if codec == "decimal-string" and value == 2.5:
        expected_encode = "2.5"
    assert decode_value(codec, value) == expected_decode
    assert encode_value(codec, value) == expected_encode


def test_no_codec_changes_nothing() -> None:
    assert decode_value(None, 5) == 5 and encode_value(None, "5") == "5"


def test_every_codec_serves_one_protocol_type() -> None:
    assert set(CODECS) == set(CODEC_TYPES)
    assert set(CODEC_TYPES.values()) == {"datetime", "number", "boolean"}
