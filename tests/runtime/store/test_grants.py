"""Grants: tokens kept only as hashes, app scoping, immediate revocation."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC

import pytest
from sqlalchemy import select

from runtime.store import DuplicateGrantError, Store
from runtime.store._tables import grants

TOKEN = "a2app_" + "7f" * 24


def _cells(store: Store) -> list[str]:
    with store._engine.connect() as conn:
        return [str(cell) for row in conn.execute(select(grants)) for cell in row]


def test_a_token_is_stored_only_as_its_sha256(store: Store) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token=TOKEN)
    cells = _cells(store)
    assert not any(TOKEN in cell for cell in cells)
    assert hashlib.sha256(TOKEN.encode()).hexdigest() in cells


def test_a_grant_never_shows_its_token(store: Store) -> None:
    grant = store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token=TOKEN)
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    for shown in (repr(grant), repr(store.find_grant(TOKEN, "kanban")), repr(store)):
        assert TOKEN not in shown and digest not in shown


def test_find_returns_the_grant_with_its_fields(store: Store) -> None:
    store.create_grant(
        id="cred_ci",
        agent_name="ci",
        scopes=["data:Card:read", "op:archive-board"],
        token=TOKEN,
        app_id="kanban",
        principal="alice",
    )
    grant = store.find_grant(TOKEN, "kanban")
    assert grant is not None
    assert (grant.id, grant.app_id, grant.agent_name, grant.principal) == (
        "cred_ci",
        "kanban",
        "ci",
        "alice",
    )
    assert grant.scopes == ("data:Card:read", "op:archive-board")
    assert grant.created_at.tzinfo is UTC and grant.revoked_at is None and grant.active


@pytest.mark.parametrize("token", ["", "a2app_wrong", TOKEN + "x", TOKEN[:-1]])
def test_other_tokens_find_nothing(store: Store, token: str) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token=TOKEN)
    assert store.find_grant(token, "kanban") is None


def test_an_app_grant_opens_only_its_app(store: Store) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token="tok-a", app_id="A")
    store.create_grant(id="cred_all", agent_name="all", scopes=["*"], token="tok-all")
    assert store.find_grant("tok-a", "A") is not None
    assert store.find_grant("tok-a", "B") is None
    assert store.find_grant("tok-all", "A") is not None
    assert store.find_grant("tok-all", "B") is not None


def test_list_filters_by_the_apps_a_grant_opens(store: Store) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token="tok-a", app_id="A")
    store.create_grant(id="cred_b", agent_name="b", scopes=["*"], token="tok-b", app_id="B")
    store.create_grant(id="cred_all", agent_name="all", scopes=["*"], token="tok-all")
    assert sorted(g.id for g in store.list_grants()) == ["cred_a", "cred_all", "cred_b"]
    assert sorted(g.id for g in store.list_grants("A")) == ["cred_a", "cred_all"]


def test_duplicate_id_is_refused_by_name(store: Store) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token="tok-1")
    with pytest.raises(DuplicateGrantError, match="'cred_a' already exists"):
        store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token="tok-2")


def test_duplicate_token_is_refused_without_naming_it(store: Store) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token=TOKEN)
    with pytest.raises(DuplicateGrantError) as caught:
        store.create_grant(id="cred_b", agent_name="b", scopes=["*"], token=TOKEN)
    assert "already holds this token" in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_scopes_must_be_a_sequence_not_a_string(store: Store) -> None:
    with pytest.raises(TypeError):
        store.create_grant(id="cred_a", agent_name="a", scopes="*", token=TOKEN)


def test_revocation_is_effective_at_once_for_every_store_instance(
    open_store: Callable[..., Store],
) -> None:
    first, second = open_store(), open_store()
    first.create_grant(id="cred_a", agent_name="a", scopes=["*"], token=TOKEN)
    assert second.find_grant(TOKEN, "kanban") is not None
    assert first.revoke_grant("cred_a") is True
    assert first.find_grant(TOKEN, "kanban") is None
    assert second.find_grant(TOKEN, "kanban") is None
    revoked = second.get_grant("cred_a")
    assert revoked is not None and revoked.revoked_at is not None and not revoked.active


def test_revoking_twice_or_unknown_reports_false(store: Store) -> None:
    store.create_grant(id="cred_a", agent_name="a", scopes=["*"], token=TOKEN)
    assert store.revoke_grant("cred_a") is True
    assert store.revoke_grant("cred_a") is False
    assert store.revoke_grant("cred_nope") is False
    assert store.get_grant("cred_nope") is None
