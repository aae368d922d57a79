"""The response kept for a rendered describe level: one per distinct body, bounded."""

from __future__ import annotations

import json

from runtime.web import _a2app


def test_the_same_bytes_get_the_same_response_and_other_bytes_their_own() -> None:
    _a2app._responses.clear()
    root = json.dumps({"level": "root"}).encode()
    first = _a2app._json(root)
    assert _a2app._json(root) is first
    # equal bytes rendered again (the describer's cache started over): still the same
    assert _a2app._json(bytes(bytearray(root))) is first
    other = _a2app._json(b'{"level":"entity"}')
    assert other is not first
    assert (first.body, other.body) == (root, b'{"level":"entity"}')
    assert dict(first.headers) == {
        "content-length": str(len(root)),
        "content-type": "application/json",
    }


def test_the_kept_responses_are_bounded() -> None:
    _a2app._responses.clear()
    for n in range(_a2app.RESPONSES_KEPT + 10):
        body = b'{"find":"%d"}' % n
        assert _a2app._json(body).body == body
    assert len(_a2app._responses) <= _a2app.RESPONSES_KEPT
