"""The SQLite store's files are owner-only: they hold token hashes, audit and receipts."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.store import Store, StoreMissingError


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.usefixtures("loose_umask")
def test_a_new_store_and_its_wal_files_are_0600(tmp_path: Path) -> None:
    path = tmp_path / "state" / "store.sqlite3"
    with Store.open(f"sqlite:///{path}") as store:
        store.create_grant(id="c", agent_name="a", scopes=["*"], token="t")
        files = [path.with_name(path.name + s) for s in ("", "-wal", "-shm")]
        assert all(f.exists() for f in files)
        assert [_mode(f) for f in files] == [0o600] * 3
    assert _mode(path.parent) == 0o700


@pytest.mark.usefixtures("loose_umask")
def test_an_older_looser_store_file_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    Store.open(f"sqlite:///{path}").close()
    path.chmod(0o644)
    with Store.open(f"sqlite:///{path}", create=False) as store:
        assert store.list_grants() == []
    assert _mode(path) == 0o600


def test_opening_without_creating_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "store.sqlite3"
    with pytest.raises(StoreMissingError, match=str(path)):
        Store.open(f"sqlite:///{path}", create=False)
    assert not path.parent.exists()
