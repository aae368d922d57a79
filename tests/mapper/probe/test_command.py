"""`a2map probe` as a command: exit codes, the JSON summary, and offline spec probes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest
import yaml
from typer.testing import CliRunner

from mapper.cli import app

from .fakes import PAYLOADS

runner = CliRunner()
SPEC = str(PAYLOADS / "drf-openapi.json")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: object, request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"the network was used: {request.method} {request.url}")

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", refuse)


def test_a_spec_alone_is_probed_without_contacting_anything(
    tmp_path: Path, no_network: None
) -> None:
    out = tmp_path / "kanban.yaml"
    result = runner.invoke(app, ["probe", "--openapi", SPEC, "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] and summary["app"] == "kanban" and summary["requests"] == {}
    assert sorted(summary["entities"]) == ["boards", "cards", "lists", "tags"]
    assert summary["variables"] == ["KANBAN_URL", "KANBAN_TOKEN"]
    doc = yaml.safe_load(out.read_text())
    assert doc["upstream"]["baseUrl"] == "${KANBAN_URL}"
    assert doc["upstream"]["pagination"]["style"] == "page"
    assert doc["entities"]["cards"]["fields"]["list"]["type"] == "string"
    assert "sort" not in doc["entities"]["cards"]
    assert [op["name"] for op in doc["operations"]] == [
        "archive-board",
        "report-board",
        "finish-card",
        "finished-count-cards",
    ]
    assert "unmapped" not in doc


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ([], {}, "give the upstream URL"),
        (["--openapi", SPEC, "--header", "Authorization Token"], {}, "write it as 'Name: value'"),
        (
            ["--openapi", SPEC, "--header", "Authorization: Token $NOPE_TOKEN"],
            {},
            "not set: NOPE_TOKEN",
        ),
        (["--openapi", SPEC, "--app-id", "Bad Id"], {}, "--app-id"),
        (["--openapi", "/no/such/spec.json"], {}, "cannot read"),
        (["ftp://example.test/"], {}, "absolute http(s) URL"),
        (["--openapi", SPEC, "--collection", "cards"], {}, "a path under the base URL"),
    ],
)
def test_usage_errors_exit_2(
    tmp_path: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    result = runner.invoke(app, ["probe", *args, "-o", str(tmp_path / "m.yaml"), "--json"], env=env)
    assert result.exit_code == 2, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] is False and summary["exit"] == 2 and message in summary["error"]
    assert not (tmp_path / "m.yaml").exists()


def test_an_unreachable_upstream_exits_2(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    result = runner.invoke(app, ["probe", url, "-o", str(tmp_path / "m.yaml")])
    assert result.exit_code == 2
    assert "does not answer" in result.output


def test_a_missing_output_directory_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["probe", "--openapi", SPEC, "-o", str(tmp_path / "no" / "m.yaml")])
    assert result.exit_code == 2 and "does not exist" in result.output
