"""Where the store lives: state directory, default URL, URL normalisation."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from runtime.store import StoreUrlError, default_store_url, state_dir
from runtime.store._url import parse_url, safe_url


def test_state_dir_defaults_to_dot_a2app_created_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("A2APP_HOME", raising=False)
    assert state_dir() == Path(".a2app")
    assert stat.S_IMODE((tmp_path / ".a2app").stat().st_mode) == 0o700


def test_state_dir_follows_a2app_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2APP_HOME", str(tmp_path / "home"))
    assert state_dir() == tmp_path / "home"
    assert (tmp_path / "home").is_dir()


def test_default_url_is_sqlite_in_the_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A2APP_HOME", str(tmp_path))
    monkeypatch.delenv("A2APP_STORE", raising=False)
    assert default_store_url() == f"sqlite:///{tmp_path.resolve()}/store.sqlite3"


def test_a2app_store_wins_over_the_state_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2APP_STORE", "postgresql://db.internal/a2app")
    assert default_store_url() == "postgresql://db.internal/a2app"


@pytest.mark.parametrize(
    "url", ["postgresql://h/db", "postgres://h/db", "postgresql+psycopg://h/db"]
)
def test_postgresql_urls_mean_psycopg3(url: str) -> None:
    assert parse_url(url).drivername == "postgresql+psycopg"


def test_passwords_never_reach_messages() -> None:
    assert "s3cret" not in safe_url("postgresql://me:s3cret@h/db")
    with pytest.raises(StoreUrlError) as caught:
        parse_url("mysql://me:s3cret@h/db")
    assert "s3cret" not in str(caught.value)
    with pytest.raises(StoreUrlError) as caught:
        parse_url("me:s3cret@h")
    assert "s3cret" not in str(caught.value)
