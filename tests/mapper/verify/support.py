"""Running `a2map verify` against real servers, and looking at the upstream directly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import yaml

from mapper.verify import RUN_MARK
from tests.fixtures.servers import KanbanServer

ROOT = Path(__file__).resolve().parents[3]
# The mappings of the Django sample; the other stacks' mappings are verified
# against their own samples in tests/stacks/.
MAPPINGS = sorted(p for p in (ROOT / "mappings").glob("*.yaml") if "${KANBAN_URL" in p.read_text())
ENDPOINTS = ("boards", "lists", "cards", "tags")
MAPPINGS_DIR = ROOT / "mappings"


def with_feed(source: Path, where: Path, entities: list[str]) -> Path:
    """A copy of `source` whose `serve.feed` watches `entities`."""
    doc = yaml.safe_load(source.read_text())
    doc["serve"] = {**(doc.get("serve") or {}), "feed": {"entities": entities}}
    where.mkdir(parents=True, exist_ok=True)
    target = where / source.name
    target.write_text(yaml.safe_dump(doc, sort_keys=False))
    return target


def copy_mapping(name: str, where: Path) -> Path:
    """Stamps are build outputs: verify a copy, never the checked-in file."""
    target = where / name
    shutil.copy(ROOT / "mappings" / name, target)
    return target


def cli_env(server: KanbanServer, **extra: str) -> dict[str, str]:
    env = dict(os.environ, KANBAN_URL=server.url, KANBAN_TOKEN=server.token)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def verify_command(mapping: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "mapper", "verify", str(mapping), *args]


def run_verify(
    mapping: Path, server: KanbanServer, *args: str, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        verify_command(mapping, *args),
        env=cli_env(server, **env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def upstream_state(server: KanbanServer) -> dict[str, list[dict[str, Any]]]:
    """Every record of every endpoint, read straight from the sample."""
    state = {}
    with httpx.Client(base_url=server.api, headers=server.headers, timeout=10) as client:
        for name in ENDPOINTS:
            answer = client.get(f"/{name}/", params={"page_size": 1000})
            answer.raise_for_status()
            state[name] = answer.json()["results"]
    return state


def marked(state: dict[str, list[dict[str, Any]]]) -> list[tuple[str, str]]:
    """Records carrying a verifier run marker in their label."""
    out = []
    for name, records in state.items():
        for record in records:
            label = str(record.get("title") or record.get("name") or "")
            if RUN_MARK.match(label) or label.startswith("a2v"):
                out.append((name, str(record["id"])))
    return out
