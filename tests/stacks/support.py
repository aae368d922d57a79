"""Probe, verify and serve one foreign stack, as its owner would from the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from typer.testing import CliRunner, Result

from mapper.cli import app
from tests.fixtures.runtime import GrantSpec, RuntimeServer, mapping_variant, start_runtime
from tests.fixtures.stacks import StackServer

ROOT = Path(__file__).resolve().parents[2]
MAPPINGS = ROOT / "mappings"
SCHEMA = MAPPINGS / "mapping.schema.json"
TOKEN = "a2app_stack_e2e"
GRANTS = (GrantSpec("cred_stack", "stack-e2e", ("*",), TOKEN),)
AGENT = {"x-a2app-token": TOKEN, "x-a2app-agent": "stack-e2e"}
runner = CliRunner()


def probe_into(directory: Path, name: str, args: list[str], env: Mapping[str, str]) -> Result:
    """`a2map probe … -o <directory>/<name>` next to a copy of the schema, as in `mappings/`."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCHEMA, directory / SCHEMA.name)
    return runner.invoke(app, ["probe", *args, "-o", str(directory / name)], env=dict(env))


def probe_twice(
    factory: pytest.TempPathFactory, name: str, args: list[str], env: Mapping[str, str]
) -> list[Path]:
    """Two probes before anything writes, as an owner would run them."""
    outputs = []
    for run in ("first", "second"):
        where = factory.mktemp(run)
        result = probe_into(where, name, args, env)
        assert result.exit_code == 0, result.output
        outputs.append(where / name)
    return outputs


def lint(path: Path) -> Result:
    return runner.invoke(app, ["lint", str(path)])


def verify_copy(
    source: Path, directory: Path, env: Mapping[str, str], *args: str
) -> tuple[Path, subprocess.CompletedProcess[str], dict[str, Any]]:
    """`a2map verify` on a copy (stamps are build outputs): the copy, the run, its report."""
    directory.mkdir(parents=True, exist_ok=True)
    copy = directory / source.name
    shutil.copy(source, copy)
    report = directory / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "mapper", "verify", str(copy), "--json", str(report), *args],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    doc = json.loads(report.read_text()) if report.exists() else {}
    return copy, done, doc


def verified_copy(source: Path, directory: Path, env: Mapping[str, str]) -> tuple[Path, Any]:
    """A copy `a2map verify` stamped (exit 0), and the JSON report."""
    copy, done, report = verify_copy(source, directory, env)
    assert done.returncode == 0, done.stdout + done.stderr
    return copy, report


MISSING: Any = object()


def dig(doc: Any, dotted: str) -> Any:
    """The value at a dotted path of a mapping document; MISSING when it is not there."""
    for part in dotted.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return MISSING
        doc = doc[part]
    return doc


def walked_in_small_pages(
    copy: Path, upstream: StackServer, env: Mapping[str, str], where: Path, size: int
) -> list[str]:
    """Every card id as the runtime lists them when the upstream pages by `size`: the walk
    follows the upstream's `Link: rel="next"` headers (a mapping variant, served unverified)."""
    doc = yaml.safe_load(copy.read_text())
    paged = {**doc["upstream"]["pagination"], "maxSize": size}
    small = mapping_variant(copy, where, upstream__pagination=paged)
    with start_runtime(small, upstream, grants=GRANTS, env=env) as rt:
        answer = httpx.get(
            f"{rt.url}/api/collections/cards/records", params={"perPage": 500}, headers=AGENT
        )
    assert answer.status_code == 200, answer.text
    return [item["id"] for item in answer.json()["items"]]


def declared_filters(doc: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """{entity: {field: sorted operators}} of a mapping document."""
    return {
        name: {field: sorted(ops) for field, ops in entity.get("filter", {}).items()}
        for name, entity in doc["entities"].items()
    }


def ids(records: list[dict[str, Any]]) -> list[str]:
    return [str(r["id"]) for r in records]


Records = list[dict[str, Any]]


@dataclass(frozen=True)
class Read:
    """A protocol query, and the upstream query (or a Python view of every record) it equals."""

    name: str
    query: dict[str, str]
    direct: dict[str, str] | Callable[[Records], Records]


@dataclass(frozen=True)
class Refusal:
    name: str
    method: str
    path: str
    body: dict[str, Any]
    codes: tuple[str, ...]


@dataclass
class Through:
    """One stack served by the runtime: calls through A2App, reads straight from the upstream."""

    upstream: StackServer
    runtime: RuntimeServer

    def a2app(self, method: str, path: str, body: Any = None, **params: str) -> httpx.Response:
        return httpx.request(
            method, self.runtime.url + path, json=body, params=params, headers=AGENT, timeout=30
        )

    def records(self, entity: str, **params: str) -> httpx.Response:
        return self.a2app("GET", f"/api/collections/{entity}/records", **params)

    def direct(self, path: str, **params: Any) -> httpx.Response:
        return httpx.get(self.upstream.url + path, params=params, headers=self.upstream.headers)

    def direct_all(self, path: str, size_param: str, **params: Any) -> Records:
        """Every record of a collection, read straight from the upstream."""
        answer = self.direct(path, **{size_param: 1000, **params})
        assert answer.status_code == 200, answer.text
        records: Records = answer.json()
        return records

    def total(self, path: str, size_param: str) -> int:
        """The upstream's own count of a collection (its X-Total-Count)."""
        return int(self.direct(path, **{size_param: 1}).headers["X-Total-Count"])

    def check_read(self, case: Read, entity: str, path: str, size_param: str) -> None:
        """The protocol's answer holds exactly the records the upstream's own answer holds."""
        answer = self.records(entity, perPage="500", **case.query)
        assert answer.status_code == 200, answer.text
        got = [item["id"] for item in answer.json()["items"]]
        everything = self.direct_all(path, size_param)
        if callable(case.direct):
            expected = ids(case.direct(everything))
        else:
            expected = ids(self.direct_all(path, size_param, **case.direct))
        assert 0 < len(expected) < len(everything) or "sort" in case.query
        assert got == expected
        assert answer.json()["totalItems"] == len(expected)

    def check_expand(self, ref: str, target: str, ident: str, many: str, many_path: str) -> None:
        """Cards expanded through a ref and a list of refs hold the upstream's own records."""
        answer = self.records("cards", filter=f'{ref} = "{ident}"', expand=f"{ref},{many}")
        items = answer.json()["items"]
        assert items and all(item["expand"][ref]["id"] == ident for item in items)
        title = self.direct(f"{target}/{ident}").json()["title"]
        assert {item["expand"][ref]["title"] for item in items} == {title}
        tagged = next(item for item in items if item[many])
        names = {t["name"] for t in tagged["expand"][many]}
        assert names == {self.direct(f"{many_path}/{t}").json()["name"] for t in tagged[many]}

    def check_page(
        self, entity: str, sort: str, page: int, size: int, direct: httpx.Response
    ) -> None:
        """One protocol page is the upstream's page of that size, with its total."""
        answer = self.records(entity, sort=sort, page=str(page), perPage=str(size)).json()
        assert [item["id"] for item in answer["items"]] == ids(direct.json())
        total = int(direct.headers["X-Total-Count"])
        assert (answer["totalItems"], answer["totalPages"]) == (total, -(-total // size))
