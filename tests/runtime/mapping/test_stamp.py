"""Verification stamps: where they live, what they bind to, when they go stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.mapping import (
    Refusal,
    Stamp,
    StampCheck,
    StampError,
    load_mapping,
    load_mapping_text,
    load_stamp,
    public_url,
    stamp_path,
    stamp_status,
    write_stamp,
)

ROOT = Path(__file__).resolve().parents[3]
KANBAN = ROOT / "mappings" / "kanban-drf.yaml"
TEXT = KANBAN.read_text()
ENV = {"KANBAN_URL": "http://127.0.0.1:8000", "KANBAN_TOKEN": "token-one-0123456789"}


def stamp_for(text: str = TEXT, **changes: object) -> Stamp:
    mapping = load_mapping_text(text, env=ENV)
    values: dict[str, object] = {
        "content_hash": mapping.content_hash,
        "app": mapping.app.id,
        "upstream": "http://127.0.0.1:8000",
        "verified_at": "2026-12-01T10:00:00Z",
        "verifier_version": "0.1.0",
        "checks": (
            StampCheck("entities.cards.filter.title.~", "filter_narrows", "passed", "2 of 3"),
            StampCheck("operations.archive-board", "operation_runs", "unproven", "destructive"),
        ),
        "proven_filters": {"cards": {"title": ("=", "~")}},
        "proven_sorts": {"cards": ("id", "title", "priority", "due", "done", "created")},
    }
    values.update(changes)
    return Stamp(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mapping_file", "stamp_file"),
    [
        ("mappings/kanban-drf.yaml", "mappings/kanban-drf.verified.json"),
        ("/tmp/x/conformance-kanban.yaml", "/tmp/x/conformance-kanban.verified.json"),
        ("a.b.yml", "a.b.verified.json"),
    ],
)
def test_the_stamp_sits_beside_its_mapping(mapping_file: str, stamp_file: str) -> None:
    assert stamp_path(mapping_file) == Path(stamp_file)


@pytest.mark.parametrize(
    ("env", "edit", "fresh"),
    [
        ({}, None, True),
        ({"KANBAN_URL": "http://127.0.0.1:9999"}, None, True),  # a new port
        ({"KANBAN_TOKEN": "token-two-9876543210"}, None, True),  # a new token
        ({}, ("max: 200", "max: 199"), False),  # any edit of the mapping
        ({}, ('"~": title__icontains}', '"~": title__contains}'), False),
    ],
    ids=["same", "new-port", "new-token", "edited-max", "edited-filter"],
)
def test_a_stamp_goes_stale_only_when_the_mapping_text_changes(
    env: dict[str, str], edit: tuple[str, str] | None, fresh: bool
) -> None:
    stamp = stamp_for()
    text = TEXT if edit is None else TEXT.replace(*edit, 1)
    assert text != TEXT or edit is None
    mapping = load_mapping_text(text, env={**ENV, **env})
    assert stamp.fresh_for(mapping) is fresh


def test_round_trip_through_the_file(tmp_path: Path) -> None:
    stamp = stamp_for(read_only=True)
    path = write_stamp(tmp_path / "kanban-drf.verified.json", stamp)
    assert load_stamp(path) == stamp
    doc = json.loads(path.read_text())
    assert doc["format"] == 1 and doc["readOnly"] is True
    assert doc["notProven"] == ["operations.archive-board"]
    assert doc["proven"]["cards"] == {
        "filters": {"title": ["=", "~"]},
        "sort": ["id", "title", "priority", "due", "done", "created"],
    }
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ('{"format": 2}', "not a stamp of format 1"),
        ('{"format": 1, "app": "x"}', "is a required property"),
    ],
)
def test_an_unusable_stamp_is_an_error_not_a_pass(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "m.verified.json"
    path.write_text(content)
    with pytest.raises(StampError, match=message):
        load_stamp(path)


def test_no_stamp_is_none(tmp_path: Path) -> None:
    assert load_stamp(tmp_path / "missing.verified.json") is None


def test_apply_marks_exactly_the_proven_pushdowns() -> None:
    mapping = load_mapping(KANBAN, env=ENV)
    served = stamp_for().apply(mapping)
    cards = served.entities["cards"]
    assert cards.filters["title"]["~"].proven and cards.filters["title"]["="].proven
    assert not cards.filters["due"]["<"].proven
    assert cards.sort is not None and cards.sort.proven
    lists = served.entities["lists"]
    assert lists.sort is not None and not lists.sort.proven
    assert served.content_hash == mapping.content_hash
    assert not mapping.entities["cards"].filters["title"]["~"].proven  # the input is untouched


def test_stamp_status_tells_the_serve_gate_why(tmp_path: Path) -> None:
    mapping_file = tmp_path / "kanban-drf.yaml"
    mapping_file.write_text(TEXT)
    mapping = load_mapping(mapping_file, env=ENV)
    missing = stamp_status(mapping_file, mapping)
    assert not missing.fresh and "no verification stamp" in missing.reason
    write_stamp(stamp_path(mapping_file), stamp_for())
    status = stamp_status(mapping_file, mapping)
    assert status.fresh and status.stamp is not None and "reads and writes" in status.reason
    edited = load_mapping_text(TEXT.replace("max: 200", "max: 199", 1), env=ENV)
    stale = stamp_status(mapping_file, edited)
    assert not stale.fresh and "another version of the mapping" in stale.reason
    stamp_path(mapping_file).write_text("{}")
    broken = stamp_status(mapping_file, mapping)
    assert not broken.fresh and "cannot be used" in broken.reason


@pytest.mark.parametrize(
    ("url", "public"),
    [
        ("http://user:secret@127.0.0.1:8000/api?key=abc#x", "http://127.0.0.1:8000/api"),
        ("https://example.test", "https://example.test"),
    ],
)
def test_recorded_upstreams_carry_no_credentials(url: str, public: str) -> None:
    assert public_url(url) == public


REFUSED = (
    Refusal("entities.cards.write.create", "create_roundtrip", "writes", "cards",
            reason="WriteNotPersisted"),
    Refusal("entities.tags.filter.name.~", "filter_narrows", "filter", "tags", "name", "~"),
)  # fmt: skip


def test_a_partial_stamp_is_format_2_and_round_trips(tmp_path: Path) -> None:
    stamp = stamp_for(refused=REFUSED)
    path = write_stamp(tmp_path / "kanban-drf.verified.json", stamp)
    doc = json.loads(path.read_text())
    # format 2, so a gate that knows only format 1 refuses it instead of serving it whole
    assert doc["format"] == 2 and [r["claim"] for r in doc["refused"]] == [r.claim for r in REFUSED]
    loaded = load_stamp(path)
    assert loaded == stamp and loaded is not None and loaded.partial
    assert json.loads(write_stamp(path, stamp_for()).read_text())["format"] == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 2}, "partial"),  # format 2 without refused claims
        ({"refused": [{"claim": "c", "check": "x", "scope": "writes"}]}, "partial"),  # format 1
        ({"format": 2, "refused": [{"claim": "c", "check": "x", "scope": "everything"}]},
         "is not one of"),
        ({"format": 2, "refused": [{"claim": "c", "check": "x", "scope": "reads", "why": 1}]},
         "Additional properties"),
    ],
    ids=["format-2-alone", "refused-in-format-1", "unknown-scope", "unknown-key"],
)  # fmt: skip
def test_a_partial_stamp_that_does_not_hold_together_is_unusable(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    doc = {**stamp_for().to_json(), **change}
    path = tmp_path / "m.verified.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(StampError, match=message):
        load_stamp(path)


def test_stamp_status_says_a_stamp_is_partial(tmp_path: Path) -> None:
    mapping_file = tmp_path / "kanban-drf.yaml"
    mapping_file.write_text(TEXT)
    write_stamp(stamp_path(mapping_file), stamp_for(refused=REFUSED))
    status = stamp_status(mapping_file, load_mapping(mapping_file, env=ENV))
    assert status.fresh and "2 refused claim(s) withheld" in status.reason


def test_the_feeds_proofs_round_trip_and_reach_only_the_feeds_entities(tmp_path: Path) -> None:
    fed = TEXT.replace("serve:\n", "serve:\n  feed: {entities: [cards]}\n", 1)
    assert "feed:" in fed
    stamp = stamp_for(fed, proven_feed={"cards": "created", "lists": "x"},
                      proven_etags=("cards", "lists"))  # fmt: skip
    path = write_stamp(tmp_path / "k.verified.json", stamp)
    doc = json.loads(path.read_text())
    assert doc["format"] == 1  # old runtimes read on, and walk every record
    assert doc["proven"]["cards"]["feedModified"] == "created"
    assert doc["proven"]["cards"]["feedEtag"] is True
    again = load_stamp(path)
    assert again is not None and again.proven_feed == {"cards": "created", "lists": "x"}
    assert again.proven_etags == ("cards", "lists")
    feed = again.apply(load_mapping_text(fed, env=ENV)).serve.feed
    assert feed is not None and feed.modified == {"cards": "created"} and feed.etags == ("cards",)
    # a stamp written before these proofs proves none
    del doc["proven"]["cards"]["feedModified"], doc["proven"]["cards"]["feedEtag"]
    older = Stamp.from_json(doc)
    feed = older.apply(load_mapping_text(fed, env=ENV)).serve.feed
    assert feed is not None and feed.modified == {} and feed.etags == ()
