"""What changed between the feed's snapshot and a walk: by record id and content hash."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from runtime.protocol import VERIFY_MARK, canonical_json
from runtime.store import Seen

Walked = Mapping[str, tuple[str, dict[str, Any]]]  # record id -> (hash, record)


def record_hash(record: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the record's canonical JSON: equal records hash equal, whatever the
    order of their keys."""
    return hashlib.sha256(canonical_json(dict(record)).encode("utf-8")).hexdigest()


def is_marked(record: Mapping[str, Any]) -> bool:
    return any(isinstance(v, str) and VERIFY_MARK in v for v in record.values())


def diff(snapshot: Mapping[str, str], walked: Walked, *, complete: bool) -> list[Seen]:
    """Creates and updates among the walked records, in walk order; with a `complete` walk,
    a delete for each snapshot id it did not meet (an incomplete one proves no absence)."""
    seen: list[Seen] = []
    for record_id, (digest, record) in walked.items():
        known = snapshot.get(record_id)
        if known is None:
            seen.append(Seen("create", record_id, digest, record))
        elif known != digest:
            seen.append(Seen("update", record_id, digest, record))
    if complete:
        seen += [Seen("delete", i, None) for i in snapshot if i not in walked]
    return seen
