"""The composed runtime (`runtime_app`): each app id's base path, and the ASGI app that
answers `base + route` as the app answers `route` served alone (what an in-process
caller, such as a gateway mounted beside the apps, relies on)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from runtime.service import RuntimeState
from runtime.web import ServeOptions, build_states, runtime_app
from tests.fixtures.runtime import KANBAN_DRF


def _copy(directory: Path, app_id: str) -> Path:
    doc = yaml.safe_load(KANBAN_DRF.read_text())
    doc["app"]["id"] = app_id
    path = directory / f"{app_id}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.fixture
def states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RuntimeState]]:
    monkeypatch.setenv("KANBAN_TOKEN", "unused")
    paths = [_copy(tmp_path, app_id) for app_id in ("app-a", "app-b")]
    options = ServeOptions(
        paths[0],
        more_mappings=(paths[1],),
        store_url=f"sqlite:///{tmp_path / 'store.sqlite3'}",
        state_dir=tmp_path,
        allow_unverified=True,
    )
    built, _ = build_states(options)
    yield built
    built[0].close()


def _get(app: object, paths: list[str]) -> list[httpx.Response]:
    async def fetch() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return [await c.get(path) for path in paths]

    return asyncio.run(fetch())


def test_several_apps_each_answer_under_their_base(states: list[RuntimeState]) -> None:
    runtime = runtime_app(states)
    assert runtime.bases == {"app-a": "/apps/app-a", "app-b": "/apps/app-b"}
    paths = [f"{base}/api/_a2app" for base in runtime.bases.values()]
    answers = _get(runtime.app, [*paths, "/api/_a2app", "/apps/app-a/api/nowhere"])
    assert [a.json()["app"]["id"] for a in answers[:2]] == ["app-a", "app-b"]
    assert "app" not in answers[2].json() and answers[2].json()["directory"] is True
    assert (answers[3].status_code, answers[3].json()["code"]) == (404, "not_found")


def test_one_app_is_served_at_the_root(states: list[RuntimeState]) -> None:
    runtime = runtime_app(states[:1])
    assert runtime.bases == {"app-a": ""}
    identity, apps = _get(runtime.app, ["/api/_a2app", "/api/_a2app/apps"])
    assert identity.json()["app"]["id"] == "app-a"
    listed = apps.json()["apps"]
    assert [(a["id"], a["base"], a["describe"]) for a in listed] == [
        ("app-a", "", "/api/_a2app/describe")
    ]
