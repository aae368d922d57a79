"""`a2map token`: a token is printed once on create and never again."""

from __future__ import annotations

import getpass
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from mapper._tokens import scope_problems, split_scopes
from mapper.cli import app
from runtime.store import Store
from tests.fixtures.databases import DATABASES, database, postgres_schema
from tests.fixtures.runtime import KANBAN_DRF

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
    assert code == 1 and err.endswith("\nerror: no grant with id 'cred_nope'\n")
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
    assert code == 1 and out == ""
    assert err == f"store: {store}\nerror: a grant with id 'c1' already exists\n"
    code, out, err = _token(*args, "--id", "c2", "--token", "tok-1")
    assert code == 1 and out == "" and "tok-1" not in err and err.count("\n") == 2


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
    assert str(tmp_path / "home" / "store.sqlite3") in err
    assert "no grants" not in _token("list")[1]
    monkeypatch.setenv("A2APP_STORE", f"sqlite:///{tmp_path / 'elsewhere.sqlite3'}")
    code, out, err = _token("list")
    assert code == 1 and out == "" and str(tmp_path / "elsewhere.sqlite3") in err
    assert not (tmp_path / "elsewhere.sqlite3").exists()


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


# --- which store, and never a new empty one by accident ---


def test_every_command_names_its_store_with_the_password_masked(tmp_path: Path) -> None:
    with postgres_schema() as url:
        secret_url = url.replace("://", f"://{getpass.getuser()}:s3cret-pw@", 1)
        base = ["--agent", "a", "--scopes", "*", "--store", secret_url]
        for args in (["create", "--id", "c", *base], ["list", "--store", secret_url]):
            code, _, err = _token(*args)
            assert code == 0, err
            assert "s3cret-pw" not in err
            assert err.startswith(f"store: {make_url(secret_url).render_as_string()}\n")
            assert "***" in err.splitlines()[0]


@dataclass(frozen=True)
class Missing:
    name: str
    args: tuple[str, ...]


MISSING = [Missing("list", ("list",)), Missing("revoke", ("revoke", "cred_a"))]


@pytest.mark.parametrize("case", MISSING, ids=lambda c: c.name)
def test_list_and_revoke_refuse_a_missing_sqlite_store(tmp_path: Path, case: Missing) -> None:
    path = tmp_path / "nested" / "nothing.sqlite3"
    code, out, err = _token(*case.args, "--store", f"sqlite:///{path}")
    assert (code, out) == (1, "")
    assert err.startswith(f"error: no store at {path}; nothing was created")
    assert err.count("\n") == 1
    assert not path.exists() and not path.parent.exists()


@pytest.mark.parametrize("case", MISSING, ids=lambda c: c.name)
def test_the_default_store_is_not_created_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Missing
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("A2APP_HOME", raising=False)
    monkeypatch.delenv("A2APP_STORE", raising=False)
    code, out, err = _token(*case.args)
    assert (code, out) == (1, "")
    assert f"no store at {tmp_path / '.a2app' / 'store.sqlite3'}" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.postgres
def test_list_refuses_a_database_without_a_store_and_creates_no_tables() -> None:
    with postgres_schema() as url:
        code, out, err = _token("list", "--store", url)
        assert (code, out) == (1, "")
        assert "holds no a2app tables; nothing was created" in err
        engine = create_engine(make_url(url).set(drivername="postgresql+psycopg"))
        try:
            with engine.connect() as conn:
                assert inspect(conn).get_table_names() == []
        finally:
            engine.dispose()


# --- scopes checked against a mapping ---


@dataclass(frozen=True)
class ScopeCase:
    name: str
    scopes: str
    extra: tuple[str, ...]
    code: int
    says: tuple[str, ...] = ()
    never: tuple[str, ...] = ()


SCOPE_CASES = [
    ScopeCase("all declared", "data:cards:read data:boards:write op:archive-board *", (), 0),
    ScopeCase(
        "misspelt entity and operation",
        "data:card:read data:lists:read op:archive-bord op:zzz",
        (),
        2,
        says=(
            "'data:card:read' (no entity 'card'; did you mean 'cards'?)",
            "'op:archive-bord' (no operation 'archive-bord'; did you mean 'archive-board'?)",
            "'op:zzz' (no operation 'zzz')",
            "entities: boards, cards, lists, tags",
            "operations: archive-board, board-report, count-finished, finish-card",
        ),
        never=("'data:lists:read'",),
    ),
    ScopeCase("case matters", "data:Cards:write", (), 2, says=("did you mean 'cards'?",)),
    ScopeCase("the mapping's app", "*", ("--app", "kanban-drf"), 0),
    ScopeCase("another app", "*", ("--app", "crm"), 2, says=("--app crm does not match",)),
]


@pytest.mark.parametrize("case", SCOPE_CASES, ids=lambda c: c.name)
def test_create_checks_scopes_against_the_mapping(tmp_path: Path, case: ScopeCase) -> None:
    path = tmp_path / "s.sqlite3"
    code, out, err = _token(
        "create",
        "--id",
        "c",
        "--agent",
        "a",
        "--scopes",
        case.scopes,
        "--mapping",
        str(KANBAN_DRF),
        "--store",
        f"sqlite:///{path}",
        *case.extra,
    )
    assert code == case.code, err
    for text in case.says:
        assert text in err
    for text in case.never:
        assert text not in err
    if case.code:
        assert out == "" and err.count("\n") == 1 and not path.exists()
    else:
        assert out.startswith("a2app_")


def test_create_refuses_a_mapping_it_cannot_read(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\n")
    store = f"sqlite:///{tmp_path / 's.sqlite3'}"
    base = ["create", "--id", "c", "--agent", "a", "--scopes", "*", "--store", store]
    code, _, err = _token(*base, "--mapping", str(tmp_path / "none.yaml"))
    assert code == 2 and "no such file" in err
    code, _, err = _token(*base, "--mapping", str(bad))
    assert code == 2 and "not a valid mapping" in err and "a2map lint" in err
