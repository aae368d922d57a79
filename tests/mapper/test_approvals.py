"""`a2map approvals`: the owner's view of approval keys and their decisions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mapper._approvals import shown_args
from mapper.cli import app
from runtime.store import Store
from tests.fixtures.databases import DATABASES, database

runner = CliRunner()
KEY = "5bf9fb4565dc262a18f9d14c0f3ce2ff9789b0d76edda8fdcf74248413598f20"
TWIN = "5bf9fb45" + "0" * 56  # shares KEY's first 8 characters
DAY = 24 * 3600


@pytest.fixture(params=DATABASES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        with Store.open(url) as store:
            store.request_approval("kanban", KEY, "archive-board", {"board": "b1"}, DAY)
            store.request_approval("kanban", TWIN, "archive-board", {"board": "b2"}, DAY)
            store.request_approval("crm", KEY, "archive-board", {}, DAY)
        yield url


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["approvals", *args])
    return result.exit_code, result.stdout, result.stderr


def test_list_shows_each_key_with_its_call_and_state(store_url: str) -> None:
    code, out, err = _run("list", "--store", store_url)
    assert code == 0, err
    assert err.startswith("store: ")
    header, *rows = out.splitlines()
    assert header.split() == ["KEY", "APP", "OPERATION", "ARGS", "ISSUED", "EXPIRES", "STATE"]
    assert len(rows) == 3 and all(row.rstrip().endswith("pending") for row in rows)
    assert '{"board":"b1"}' in out and KEY[:12] in out
    code, out, _ = _run("list", "--json", "--app", "crm", "--store", store_url)
    [doc] = json.loads(out)
    assert (doc["key"], doc["app_id"], doc["args"], doc["state"]) == (KEY, "crm", {}, "pending")
    assert set(doc) == {
        "key",
        "app_id",
        "operation",
        "args",
        "issued_at",
        "expires_at",
        "state",
        "decision",
        "decided_at",
        "used_at",
    }


def test_approve_and_deny_record_the_owners_decision(store_url: str) -> None:
    code, out, err = _run("approve", KEY[:12], "--app", "kanban", "--store", store_url)
    assert code == 0, err
    assert out.startswith(f"approved {KEY} (app kanban): archive-board {{")
    code, out, _ = _run("deny", TWIN, "--json", "--store", store_url)
    assert code == 0 and json.loads(out)["decision"] == "denied"
    with Store.open(store_url) as store:
        assert store.consume_approved("kanban", KEY) is True
        assert store.consume_approved("kanban", TWIN) is False
        crm = store.approval("crm", KEY)
        assert crm is not None and crm.state == "pending"


@dataclass(frozen=True)
class Refusal:
    name: str
    args: tuple[str, ...]
    code: int
    says: str


REFUSALS = [
    Refusal("not hex", ("approve", "not-a-key"), 2, "hexadecimal"),
    Refusal("too short", ("approve", KEY[:7]), 2, "8 to 64"),
    Refusal("ambiguous prefix", ("approve", KEY[:8], "--app", "kanban"), 2, "matches 2"),
    Refusal("same key in two apps", ("deny", KEY), 2, "--app"),
    Refusal("unknown key", ("approve", "ab" * 32), 1, "no approval key"),
    Refusal("unknown app", ("approve", KEY, "--app", "nope"), 1, "in app nope"),
]


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.name)
def test_what_cannot_be_decided_is_refused(store_url: str, case: Refusal) -> None:
    code, out, err = _run(*case.args, "--store", store_url)
    assert (code, out) == (case.code, "")
    assert case.says in err.splitlines()[-1]
    with Store.open(store_url) as store:
        assert all(a.decision is None for a in store.list_approvals())


def test_a_used_key_cannot_be_decided_again(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.decide_approval("kanban", KEY, "approved")
        assert store.consume_approved("kanban", KEY)
    code, _, err = _run("deny", KEY, "--app", "kanban", "--store", store_url)
    assert code == 1 and "was used at" in err and "nothing was decided" in err


@pytest.mark.parametrize("command", [("list",), ("approve", KEY), ("deny", KEY)])
def test_a_missing_store_is_named_and_not_created(tmp_path: Path, command: tuple[str]) -> None:
    path = tmp_path / "none.sqlite3"
    code, out, err = _run(*command, "--store", f"sqlite:///{path}")
    assert (code, out) == (1, "")
    assert f"no store at {path}; nothing was created" in err and not path.exists()


def test_arguments_never_reach_the_terminal_unescaped() -> None:
    shown = shown_args({"note": "a\x1b[31mred\x07\u202e\x85 ok é", "n": [1, None]})
    assert shown == '{"n":[1,null],"note":"a\\u001b[31mred\\u0007\\u202e\\u0085 ok é"}'
    assert shown.isprintable()
    assert shown_args(None) == "(not recorded)"
