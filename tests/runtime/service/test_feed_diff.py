"""The feed's diff: by id and content hash; deletes only from a complete walk."""

from __future__ import annotations

from typing import Any

from runtime.service import feed_diff, feed_record_hash, feed_skips

A = {"id": "a", "title": "A", "done": False}
B = {"id": "b", "title": "B", "done": False}


def _walked(*records: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {r["id"]: (feed_record_hash(r), r) for r in records}


def test_the_hash_is_the_canonical_json_whatever_the_key_order() -> None:
    assert feed_record_hash({"b": 1, "a": [1, "x"]}) == feed_record_hash({"a": [1, "x"], "b": 1})
    assert feed_record_hash(A) != feed_record_hash({**A, "done": True})
    assert len(feed_record_hash(A)) == 64


def test_new_ids_are_creates_changed_hashes_updates() -> None:
    snapshot = {"a": feed_record_hash(A), "b": feed_record_hash(B)}
    changed = {**B, "title": "B2"}
    seen = feed_diff(snapshot, _walked(A, changed, {"id": "c", "title": "C"}), complete=True)
    assert [(s.action, s.record_id) for s in seen] == [("update", "b"), ("create", "c")]
    assert seen[0].record == changed and seen[0].hash == feed_record_hash(changed)


def test_a_missing_id_is_a_delete_only_after_a_complete_walk() -> None:
    snapshot = {"a": feed_record_hash(A), "b": feed_record_hash(B)}
    assert feed_diff(snapshot, _walked(A), complete=False) == []
    gone = feed_diff(snapshot, _walked(A), complete=True)
    assert [(s.action, s.record_id, s.hash) for s in gone] == [("delete", "b", None)]


def test_nothing_changed_is_no_change() -> None:
    snapshot = {"a": feed_record_hash(A)}
    assert feed_diff(snapshot, _walked(A), complete=True) == []


def test_the_verifiers_records_are_skipped() -> None:
    assert feed_skips({"id": "x", "title": "a2v-3f9c1e card"})
    assert not feed_skips({"id": "x", "title": "An ordinary card", "n": 3})
