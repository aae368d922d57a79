"""Audit entries and receipts: appended per app, read back in order by cursor."""

from __future__ import annotations

from datetime import UTC

from runtime.store import Store


def test_audit_entries_keep_every_field(store: Store) -> None:
    first = store.add_audit(
        app_id="kanban",
        credential_id="cred_ci",
        agent_name="ci",
        asserted_agent="helper-bot",
        principal="owner",
        target="data:Card",
        record_id="42",
        outcome="ok",
    )
    second = store.add_audit(
        app_id="kanban", target="op:archive-board", outcome="rejected", code="missing_required"
    )
    store.add_audit(app_id="other", target="data:Card", outcome="ok")
    entries = store.audit_entries("kanban")
    assert [e.id for e in entries] == [first, second]
    assert (entries[0].credential_id, entries[0].asserted_agent, entries[0].record_id) == (
        "cred_ci",
        "helper-bot",
        "42",
    )
    assert entries[1].credential_id is None and entries[1].code == "missing_required"
    assert entries[0].at.tzinfo is UTC


def test_receipts_page_by_cursor(store: Store) -> None:
    ids = [
        store.add_receipt(
            app_id="kanban",
            credential_id="cred_ci",
            target="data:Card",
            record_id=str(n),
            text=f"Created card {n}",
        )
        for n in range(5)
    ]
    store.add_receipt(app_id="other", target="data:Card", text="Created card elsewhere")
    assert ids == sorted(ids)
    page = store.receipts_since("kanban", 0, 2)
    assert [r.text for r in page] == ["Created card 0", "Created card 1"]
    rest = store.receipts_since("kanban", page[-1].id, 10)
    assert [r.record_id for r in rest] == ["2", "3", "4"]
    assert store.receipts_since("kanban", rest[-1].id, 10) == []
    assert rest[0].app_id == "kanban" and rest[0].at.tzinfo is UTC
