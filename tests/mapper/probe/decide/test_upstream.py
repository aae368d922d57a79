"""The upstream-wide error dialect is read from the shape of an answer without credentials."""

from __future__ import annotations

from typing import Any

import pytest

from mapper.probe.decide._upstream import dialects
from mapper.probe.live import Exchange


def _anonymous(body: Any) -> Exchange:
    return Exchange("GET", "/v1/customers", status=401, kind="json", body=body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"error": {"type": "invalid_request_error", "message": "No API key."}}, "error-object"),
        ({"error": {"message": "No API key."}}, "plain"),  # no type: not the shape
        ({"error": {"type": "x", "message": "y"}, "status": 401}, "plain"),  # more than one key
        ({"error": "unauthorized"}, "plain"),
    ],
)
def test_an_error_object_answer_without_credentials_names_the_dialect(
    body: Any, expected: str
) -> None:
    errors, _, notes = dialects([], [], _anonymous(body), {"style": "cursor"})
    assert errors == expected
    assert any(n.startswith(f"upstream.errors: {expected}") for n in notes)
