"""A successful write's end: the key's end, the receipt, the audit entry and the count, at once."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from runtime.store import IdemState, Store, WriteEnd


def _end(**changes: Any) -> WriteEnd:
    base = WriteEnd(
        app_id="kanban", target="data:cards", record_id="42", credential_id="cred_ci",
        agent_name="ci", principal="owner", asserted_agent="helper-bot",
        receipt_target="data:cards", receipt_record_id="42", receipt="Created card 42.",
        idempotency=("cards", "k1"), operation=None,
    )  # fmt: skip
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize("counted", [True, False], ids=["data changed", "nothing changed"])
def test_one_commit_ends_the_write(store: Store, counted: bool) -> None:
    before = store.start_data_version("kanban")
    assert store.reserve_idempotency_key("kanban", "cards", "k1") == IdemState("fresh")
    version = store.finish_write(_end(counted=counted))
    assert store.reserve_idempotency_key("kanban", "cards", "k1") == IdemState("done", "42")
    [receipt] = store.receipts_since("kanban")
    [entry] = store.audit_entries("kanban")
    assert (receipt.text, receipt.record_id, receipt.credential_id) == (
        "Created card 42.", "42", "cred_ci",
    )  # fmt: skip
    assert (entry.outcome, entry.target, entry.asserted_agent, entry.principal) == (
        "ok", "data:cards", "helper-bot", "owner",
    )  # fmt: skip
    assert entry.at == receipt.at  # one transaction, one moment
    assert (version is not None) is counted
    assert (store.data_version("kanban") != before) is counted


def test_a_write_without_a_key_ends_the_same(store: Store) -> None:
    store.finish_write(_end(idempotency=None))
    assert len(store.receipts_since("kanban")) == len(store.audit_entries("kanban")) == 1
    assert store.reserve_idempotency_key("kanban", "cards", "k1") == IdemState("fresh")
