"""The default local grant and its owner-only token file."""

from __future__ import annotations

import re
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from runtime.store import LOCAL_GRANT_ID, Store, TokenFileError, new_token


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_tokens_have_the_protocol_shape() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(re.fullmatch(r"a2app_[0-9a-f]{48}", t) for t in tokens)


def test_first_start_mints_a_0600_file_and_the_local_grant(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "state" / ".agent-token"
    token = store.ensure_local_grant(path)
    assert re.fullmatch(r"a2app_[0-9a-f]{48}", token)
    assert path.read_text() == token + "\n"
    assert _mode(path) == 0o600
    assert _mode(path.parent) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [".agent-token"]
    grant = store.find_grant(token, "any-app")
    assert grant is not None
    assert (grant.id, grant.agent_name, grant.principal, grant.scopes, grant.app_id) == (
        LOCAL_GRANT_ID,
        "local",
        "owner",
        ("*",),
        None,
    )


def test_later_starts_reuse_the_file(open_store: Callable[..., Store], tmp_path: Path) -> None:
    path = tmp_path / ".agent-token"
    token = open_store().ensure_local_grant(path)
    assert open_store().ensure_local_grant(path) == token
    assert [g.id for g in open_store().list_grants()] == [LOCAL_GRANT_ID]


def test_an_existing_file_registers_its_token(store: Store, tmp_path: Path) -> None:
    path = tmp_path / ".agent-token"
    path.write_text("a2app_handmade\n")
    path.chmod(0o600)
    assert store.ensure_local_grant(path) == "a2app_handmade"
    assert store.find_grant("a2app_handmade", "kanban") is not None


def test_a_replaced_file_moves_the_grant_to_the_new_token(store: Store, tmp_path: Path) -> None:
    path = tmp_path / ".agent-token"
    old = store.ensure_local_grant(path)
    path.unlink()
    new = store.ensure_local_grant(path)
    assert new != old
    assert store.find_grant(old, "kanban") is None
    assert store.find_grant(new, "kanban") is not None


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_file_others_can_read_is_refused(store: Store, tmp_path: Path, mode: int) -> None:
    path = tmp_path / ".agent-token"
    path.write_text("a2app_" + "0" * 48 + "\n")
    path.chmod(mode)
    with pytest.raises(TokenFileError, match=rf"mode {mode:04o}.*chmod 600"):
        store.ensure_local_grant(path)
    assert store.list_grants() == []


def test_an_empty_file_is_refused(store: Store, tmp_path: Path) -> None:
    path = tmp_path / ".agent-token"
    path.write_text("\n")
    path.chmod(0o600)
    with pytest.raises(TokenFileError, match="one token"):
        store.ensure_local_grant(path)


def test_concurrent_first_starts_agree_on_one_token(
    open_store: Callable[..., Store], tmp_path: Path
) -> None:
    path = tmp_path / ".agent-token"
    stores = [open_store() for _ in range(4)]
    barrier = threading.Barrier(len(stores))
    tokens: list[str] = []

    def start(store: Store) -> None:
        barrier.wait()
        tokens.append(store.ensure_local_grant(path))

    threads = [threading.Thread(target=start, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tokens) == 4 and len(set(tokens)) == 1
    assert path.read_text().strip() == tokens[0]
    assert stores[0].find_grant(tokens[0], "kanban") is not None
