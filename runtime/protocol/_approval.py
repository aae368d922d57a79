"""Approval keys for destructive operations (protocol §13).

The key is content-addressed: the SHA-256 of the RFC 8785 canonical JSON of
`{"operation": <name>, "args": <args>}`. Any server following RFC 8785 computes
the same key for the same call, so "approve this exact call" is portable, and
approving one call approves no variant of its arguments.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ._jsjson import canonical_json as canonical_json
from ._jsjson import js_json as js_json
from ._jsjson import js_number_text as js_number_text


def approval_key(operation: str, args: Mapping[str, Any] | None) -> str:
    """Lowercase hex SHA-256 of the canonical `{"operation", "args"}` document."""
    document = {"operation": operation, "args": {} if args is None else args}
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()
