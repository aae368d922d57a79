"""docs/protocol.md and the code agree: routes, error codes, headers, extension numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from runtime.protocol import REGISTRY
from runtime.web import ServeOptions, build_state, create_app
from tests.fixtures.runtime import KANBAN_DRF, RuntimeServer, start_runtime
from tests.fixtures.servers import KanbanServer

from .markdown import DOCS, ROOT, prose, tables

DOC = DOCS / "protocol.md"
# Placeholders of the route table, filled with names of mappings/kanban-drf.yaml and
# the rich seed of the Django sample.
FILLS = {
    "module": "board",
    "entity": "cards",
    "id": "card_r001",
    "relation": "tags",
    "name": "count-finished",
    "cursor": "0",
}
# The reference's routes under /api/_a2app this runtime does not serve.
NOT_SERVED = ("viewers",)


def _table(first: str) -> list[list[str]]:
    (found,) = [t for t in tables(DOC.read_text()) if t[0][0] == first]
    return found[1:]


def _codes(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _expand(route: str) -> list[str]:
    """`/a[/{b}[/{c}]]` -> `/a`, `/a/{b}`, `/a/{b}/{c}`."""
    head, _, optional = route.partition("[")
    levels = [head]
    for part in optional.replace("]", "").split("["):
        if part:
            levels.append(levels[-1] + part)
    return levels


def documented_routes() -> list[tuple[str, str]]:
    """(method, path with placeholders) for every row of the route table."""
    out = []
    for method, paths, _ in _table("method"):
        for route in _codes(paths):
            out += [(method, path) for path in _expand(route)]
    return out


def _concrete(path: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: FILLS.get(m.group(1), "job_none"), path)


@pytest.fixture(scope="module")
def runtime(kanban_rich: KanbanServer) -> Iterator[RuntimeServer]:
    # PYTHONPATH: the runtime of this checkout, not whichever the venv installed
    with start_runtime(KANBAN_DRF, kanban_rich, env={"PYTHONPATH": str(ROOT)}) as served:
        yield served


def test_every_registered_route_is_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    options = ServeOptions(
        KANBAN_DRF,
        store_url=f"sqlite:///{tmp_path / 'store.sqlite3'}",
        state_dir=tmp_path,
        allow_unverified=True,
    )
    state, _ = build_state(options)
    try:
        registered = {getattr(r, "path", "") for r in create_app(state).router.routes}
    finally:
        state.store.close()
    registered.discard("/{rest:path}")  # everything else: 404 not_found
    assert registered
    paths = {path.split("?")[0] for _, path in documented_routes()}
    for path in registered:
        prefix = path.removesuffix("/{rest:path}")
        assert any(p == prefix or p.startswith(prefix + "/") for p in paths), path


# A hook answers only under a name its mapping declares, and this one declares none:
# tests/runtime/web/test_hooks.py serves it.
SERVED_ELSEWHERE = ("/api/_a2app/hooks/{name}",)
# The realtime stream does not end within a request's timeout:
# tests/runtime/web/test_realtime.py reads it.
STREAMS = (("GET", "/api/realtime"),)


@pytest.mark.parametrize(
    "route",
    [r for r in documented_routes() if r[1] not in SERVED_ELSEWHERE and r not in STREAMS],
    ids=lambda r: f"{r[0]} {r[1]}",
)
def test_every_documented_route_is_served(route: tuple[str, str], runtime: RuntimeServer) -> None:
    method, path = route
    verb = "GET" if method == "any" else method
    # no token: writes are refused before they reach the sample, yet the route answers
    answer = httpx.request(verb, runtime.url + _concrete(path), timeout=30)
    body = answer.json()
    assert body.get("code") != "not_found" and answer.status_code != 405, answer.text


@pytest.mark.parametrize("name", NOT_SERVED)
def test_routes_said_not_served_are_not_found(name: str, runtime: RuntimeServer) -> None:
    assert f"`{name}`" in prose(DOC.read_text())
    answer = httpx.get(f"{runtime.url}/api/_a2app/{name}", timeout=30)
    assert (answer.status_code, answer.json()["code"]) == (404, "not_found")


def test_the_code_table_is_the_registry() -> None:
    rows = {code: (status, retry) for cell, status, retry, _ in _table("code")
            for code in _codes(cell)}  # fmt: skip
    assert sorted(rows) == sorted(REGISTRY)
    for code, spec in REGISTRY.items():
        status, retry = rows[code]
        assert int(re.findall(r"\d{3}", status)[0]) == spec.status, code
        assert retry == spec.retry, code


def test_every_header_the_runtime_reads_or_sends_is_documented() -> None:
    # runtime/upstream/ speaks to the foreign app; its headers are not the protocol's
    sources = [p for p in (ROOT / "runtime").rglob("*.py") if "upstream" not in p.parts]
    literal = re.compile(r"""["']((?:x-[a-z0-9-]+|idempotency-key|origin|host))["']""", re.I)
    names = {m.lower() for p in sources for m in literal.findall(p.read_text())}
    assert {"x-a2app-token", "x-a2app-receipt", "idempotency-key"} <= names
    documented = {
        h.lower() for table in ("request header", "response header")
        for row in _table(table) for h in re.findall(r"`([\w-]+)", row[0])
    }  # fmt: skip
    assert names <= documented, names - documented


def test_extensions_are_numbered_and_every_reference_exists() -> None:
    text = prose(DOC.read_text())
    section = text.split("## Extensions", 1)[1]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. \*\*", section, re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 12
    cited = {int(n) for n in re.findall(r"\[extension (\d+)\]", text)}
    assert cited and cited <= set(numbers)
