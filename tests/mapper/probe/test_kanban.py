"""The real Django sample: probed read-only, deterministic, agreeing with the hand-written
mapping, and served by the runtime for reads and writes.

Differences from `kanban-drf.yaml` that are not about entities, fields or types,
and why the prober leaves them:

- modules: one per OpenAPI tag (boards, cards, lists, tags) instead of the owner's
  grouping (board, labels); grouping is an owner's choice.
- ``upstreamOnDelete`` and ``onDelete``: what the upstream does on delete is proved
  by writes (the verifier), and the runtime's policy is the owner's; a read-only
  probe can know neither.
- ``appliesWhen``, jobs and ``maxSize``: nothing the API publishes states them.
- operation names follow one rule (``<action>-<entity>``) instead of prose names.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from mapper.cli import app
from runtime.mapping import Field, load_mapping, without_defaults
from tests.fixtures.runtime import KANBAN_DRF, GrantSpec, start_runtime
from tests.fixtures.servers import KanbanServer, start_kanban

ROOT = Path(__file__).resolve().parents[3]
PROBED = ROOT / "mappings" / "kanban-drf.probed.yaml"
SCHEMA = ROOT / "mappings" / "mapping.schema.json"
HEADER = "Authorization: Token ${KANBAN_TOKEN}"
ACCESS_LINE = re.compile(r" samples\.kanban_drf: ([A-Z]+) (\S+) (\d{3}|-) ")
runner = CliRunner()


def probe_into(directory: Path, server: KanbanServer, *extra: str) -> tuple[Path, Any]:
    """Probe as an owner would, next to a copy of the schema as in `mappings/`."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(SCHEMA, directory / SCHEMA.name)
    out = directory / PROBED.name
    args = ["probe", server.url, "-o", str(out), "--header", HEADER, *extra]
    result = runner.invoke(app, args, env={"KANBAN_TOKEN": server.token})
    return out, result


@pytest.fixture(scope="module")
def verbose_rich() -> Iterator[KanbanServer]:
    with start_kanban(seed="rich", extra_args=("--verbose",)) as server:
        yield server


@pytest.fixture(scope="module")
def probed_twice(
    verbose_rich: KanbanServer, tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    outputs = []
    for run in ("first", "second"):
        out, result = probe_into(tmp_path_factory.mktemp(run), verbose_rich)
        assert result.exit_code == 0, result.output
        outputs.append(out)
    return outputs


def test_only_get_head_and_options_reach_the_sample(
    verbose_rich: KanbanServer, probed_twice: list[Path]
) -> None:
    received = ACCESS_LINE.findall(verbose_rich.stderr_tail(2_000_000))
    assert len(received) > 20, "the access log recorded the probe"
    assert {method for method, _, _ in received} <= {"GET", "HEAD", "OPTIONS"}
    assert {"GET", "OPTIONS"} <= {method for method, _, _ in received}


def test_probing_twice_gives_the_checked_in_bytes(probed_twice: list[Path]) -> None:
    first, second = (p.read_bytes() for p in probed_twice)
    assert first == second
    # Checked in as `${KANBAN_URL}`: the default is the port the sample happened to run on.
    assert without_defaults(first.decode()).encode() == PROBED.read_bytes(), (
        "re-probe changed: run a2map probe and review the diff"
    )


def test_no_secret_url_or_record_value_is_written(
    verbose_rich: KanbanServer, probed_twice: list[Path]
) -> None:
    text = probed_twice[0].read_text()
    assert f'baseUrl: "${{KANBAN_URL:-{verbose_rich.url}}}"' in text  # the only place it is
    text = without_defaults(text)
    port = verbose_rich.url.rsplit(":", 1)[1]
    for leak in (verbose_rich.token, port, "127.0.0.1", "card_seed", "card_r0", "2026-"):
        assert leak not in text
    assert 'baseUrl: "${KANBAN_URL}"' in text and "Token ${KANBAN_TOKEN}" in text


def _semantics(f: Field) -> tuple[Any, ...]:
    return (f.type, f.entity, f.values, f.required, f.read_only, f.write_only, f.max, f.day_key)


def test_the_probe_agrees_with_the_hand_written_mapping() -> None:
    written = load_mapping(KANBAN_DRF, resolve_env=False)
    probed = load_mapping(PROBED, resolve_env=False)
    assert list(written.entities) and set(written.entities) == set(probed.entities)
    for name, entity in written.entities.items():
        other = probed.entities[name]
        assert (other.path, other.id_source, other.id_type) == (
            entity.path,
            entity.id_source,
            entity.id_type,
        )
        assert set(other.fields) == set(entity.fields), name
        for fname, field in entity.fields.items():
            assert _semantics(other.fields[fname]) == _semantics(field), f"{name}.{fname}"
        assert set(entity.filters) <= set(other.filters), name
        assert entity.sort is not None and other.sort is not None
        assert set(entity.sort.fields) <= set(other.sort.fields)
    assert written.upstream.pagination.style == probed.upstream.pagination.style
    assert (probed.upstream.errors, probed.upstream.dialect) == ("drf", "django-filter")
    requests = {(o.request.method, o.request.path) for o in probed.operations if o.request}
    requests_written = {
        (r.method, r.path)
        for o in written.operations
        if (r := o.request or (o.job.request if o.job else None)) is not None
    }
    assert requests == requests_written


def test_the_checked_in_probe_lints() -> None:
    result = runner.invoke(app, ["lint", str(PROBED)])
    assert result.exit_code == 0, result.output


def test_the_runtime_serves_the_probed_mapping_for_reads_and_writes() -> None:
    token = "a2app_probed_full"
    grants = (GrantSpec("cred_probed", "probed-e2e", ("*",), token),)
    headers = {"x-a2app-token": token, "x-a2app-agent": "probed-e2e"}
    with start_kanban() as upstream, start_runtime(PROBED, upstream, grants=grants) as rt:

        def call(method: str, path: str, body: Any = None) -> httpx.Response:
            return httpx.request(method, rt.url + path, json=body, headers=headers, timeout=30)

        listed = call("GET", "/api/collections/cards/records").json()
        assert [c["id"] for c in listed["items"]] == ["card_seed"]
        values = {
            "title": "Probed write",
            "priority": "high",
            "due": "2027-01-02",
            "list": "list_doing",
            "tags": [],
        }
        created = call("POST", "/api/collections/cards/records", values)
        assert created.status_code == 200, created.text
        card = created.json()
        direct = httpx.get(f"{upstream.api}/cards/{card['id']}/", headers=upstream.headers).json()
        assert {k: direct[k] for k in values} == values
        patched = call("PATCH", f"/api/collections/cards/records/{card['id']}", {"done": True})
        assert patched.status_code == 200 and patched.json()["done"] is True
        finished = call("POST", "/api/ops/finish-card", {"card": "card_seed"})
        assert finished.status_code == 200, finished.text
        refused = call("POST", "/api/collections/cards/records", {"title": "x", "priority": "asap"})
        assert refused.json()["code"] == "invalid_enum"
        deleted = call("DELETE", f"/api/collections/cards/records/{card['id']}")
        assert deleted.json()["deleted"] == card["id"]


def test_an_api_answering_html_is_nothing_mappable(kanban_factory: Any, tmp_path: Path) -> None:
    server = kanban_factory(fault="html")
    out, result = probe_into(tmp_path, server, "--json")
    assert result.exit_code == 1, result.output
    assert not out.exists()
    assert '"ok": false' in result.stdout


@pytest.mark.parametrize(
    ("given", "told"),
    [((), "no credentials given"),
     (("--header", "Authorization: Token not-the-token"),
      "the credentials given (Authorization) were refused")],
    ids=["no header", "a wrong token"],
)  # fmt: skip
def test_a_probe_refused_every_read_exits_2_naming_the_header(
    kanban_rich: KanbanServer, tmp_path: Path, given: tuple[str, ...], told: str
) -> None:
    """The spec is public but every collection answers 401: a mapping of the spec alone
    would be a mapping of nothing read, so the probe says which header to pass."""
    out = tmp_path / "anon.yaml"
    env = {k: v for k, v in os.environ.items() if k != "KANBAN_TOKEN"}
    args = ["probe", kanban_rich.url, "-o", str(out), "--json", *given]
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 2, result.output
    assert not out.exists()
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["header"] == "Authorization: Token ${KANBAN_TOKEN}"
    assert told in report["error"] and "WWW-Authenticate: Token" in report["error"]
    assert "--header 'Authorization: Token ${KANBAN_TOKEN}'" in result.stderr
    refused = [u["path"] for u in report["unmapped"] if u["reason"].startswith("auth-refused")]
    assert refused == ["/api/boards/", "/api/cards/", "/api/lists/", "/api/tags/"]
    assert "not-the-token" not in result.output
