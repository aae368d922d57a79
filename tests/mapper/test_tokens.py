"""`a2map token`: a token is printed once on create and never again."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mapper._tokens import scope_problems, split_scopes
from mapper.cli import app
from runtime.store import Store
from tests.fixtures.databases import DATABASES, database

runner = CliRunner()


@pytest.fixture(params=DATABASES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


def _token(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["token", *args])
    return result.exit_code, result.stdout, result.stderr


def test_create_prints_the_token_once_and_list_never_shows_it(store_url: str) -> None:
    code, out, err = _token(
        "create",
        "--id",
        "cred_ci",
        "--agent",
        "ci",
        "--scopes",
        "data:Card:read op:archive-board",
        "--store",
        store_url,
    )
    assert code == 0, err
    token = out.strip()
    assert re.fullmatch(r"a2app_[0-9a-f]{48}", token)
    assert out == token + "\n"
    assert token not in err and "cred_ci" in err and "every app" in err
    digest = hashlib.sha256(token.encode()).hexdigest()
    for extra in ([], ["--json"], ["--app", "kanban"]):
        code, out, err = _token("list", "--store", store_url, *extra)
        assert code == 0, err
        assert "cred_ci" in out
        assert token not in out + err and digest not in out + err
    with Store.open(store_url) as store:
        grant = store.find_grant(token, "kanban")
        assert grant is not None and grant.scopes == ("data:Card:read", "op:archive-board")
        assert store.find_grant(token, "another-app") is not None


def test_list_json_describes_each_grant(store_url: str) -> None:
    _token(
        "create",
        "--id",
        "cred_a",
        "--agent",
        "a",
        "--scopes",
        "*",
        "--app",
        "kanban",
        "--store",
        store_url,
    )
    code, out, _ = _token("list", "--json", "--store", store_url)
    assert code == 0
    [doc] = json.loads(out)
    assert doc["id"] == "cred_a" and doc["app_id"] == "kanban" and doc["scopes"] == ["*"]
    assert doc["revoked_at"] is None and set(doc) == {
        "id",
        "app_id",
        "agent_name",
        "principal",
        "scopes",
        "created_at",
        "revoked_at",
    }


def test_an_app_grant_opens_only_that_app(store_url: str) -> None:
    code, _, _ = _token(
        "create",
        "--id",
        "cred_a",
        "--agent",
        "a",
        "--scopes",
        "*",
        "--app",
        "kanban",
        "--token",
        "tok-for-kanban",
        "--store",
        store_url,
    )
    assert code == 0
    with Store.open(store_url) as store:
        assert store.find_grant("tok-for-kanban", "kanban") is not None
        assert store.find_grant("tok-for-kanban", "other") is None


def test_revoke_stops_the_token_and_unknown_ids_exit_1(store_url: str) -> None:
    _, out, _ = _token(
        "create", "--id", "cred_a", "--agent", "a", "--scopes", "*", "--store", store_url
    )
    token = out.strip()
    code, out, _ = _token("revoke", "cred_a", "--store", store_url)
    assert code == 0 and "revoked cred_a" in out
    with Store.open(store_url) as store:
        assert store.find_grant(token, "kanban") is None
    assert _token("revoke", "cred_a", "--store", store_url)[0] == 0
    code, _, err = _token("revoke", "cred_nope", "--store", store_url)
    assert code == 1 and err == "error: no grant with id 'cred_nope'\n"
    code, out, _ = _token("list", "--store", store_url)
    assert "revoked" in out


def test_bad_scopes_exit_2_naming_each(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.sqlite3'}"
    code, out, err = _token(
        "create",
        "--id",
        "c",
        "--agent",
        "a",
        "--store",
        store,
        "--scopes",
        "* data:Card:delete op:Bad data:*:read data:Card:read op:ok",
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    for bad in ("'data:Card:delete'", "'op:Bad'", "'data:*:read'"):
        assert bad in err
    assert "'data:Card:read'" not in err and "'op:ok'" not in err
    assert not (tmp_path / "s.sqlite3").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scopes", "  "], "names no scope"),
        (["--scopes", "*", "--token", "has space"], "--token"),
        (["--scopes", "*", "--store", "mysql://h/db"], "unsupported store database"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    base = ["create", "--id", "c", "--agent", "a"]
    if "--store" not in args:
        base += ["--store", f"sqlite:///{tmp_path / 's.sqlite3'}"]
    code, out, err = _token(*base, *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_duplicates_exit_1_with_one_line(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.sqlite3'}"
    args = ["create", "--agent", "a", "--scopes", "*", "--store", store]
    assert _token(*args, "--id", "c1", "--token", "tok-1")[0] == 0
    code, out, err = _token(*args, "--id", "c1")
    assert code == 1 and out == "" and err == "error: a grant with id 'c1' already exists\n"
    code, out, err = _token(*args, "--id", "c2", "--token", "tok-1")
    assert code == 1 and out == "" and "tok-1" not in err and err.count("\n") == 1


def test_an_unreachable_store_exits_1() -> None:
    code, out, err = _token("list", "--store", "postgresql://127.0.0.1:1/test")
    assert code == 1 and out == "" and err.startswith("error: cannot open the store")


def test_the_default_store_lives_in_a2app_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A2APP_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("A2APP_STORE", raising=False)
    code, _, err = _token("create", "--id", "c", "--agent", "a", "--scopes", "*")
    assert code == 0, err
    assert (tmp_path / "home" / "store.sqlite3").is_file()
    monkeypatch.setenv("A2APP_STORE", f"sqlite:///{tmp_path / 'elsewhere.sqlite3'}")
    assert "no grants" in _token("list")[1]


def test_scope_grammar() -> None:
    good = ["*", "data:Card:read", "data:card_2:write", "op:archive-board", "op:a"]
    bad = [
        "",
        "**",
        "data:Card",
        "data:Card:delete",
        "data:2x:read",
        "op:Archive",
        "op:-x",
        "data:*:read",
        "op:",
        "scope",
    ]
    assert scope_problems(good) == []
    assert scope_problems(bad) == bad
    assert split_scopes(" *,op:a  op:a\tdata:C:read ") == ["*", "op:a", "data:C:read"]
