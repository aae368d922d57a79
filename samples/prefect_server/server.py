"""Prefect 3.9.1's own server: a real FastAPI application whose listings are ``POST``.

Prefect is installed by ``samples/setup.sh`` into its own virtual environment under the
samples cache (``<cache>/prefect-3.9.1/venv``: it pins versions of FastAPI, SQLAlchemy
and pydantic of its own). The server runs on SQLite in the data directory, without its
UI and analytics. Once it answers, a new data directory is seeded through Prefect's own
API (variables, flows and work pools); a reused one is left as it is.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from samples.stacks_common.launch import Launch, StackError, cache_root
from samples.stacks_common.launch import main as launch_main

VERSION = "3.9.1"
HEALTH = "/api/health"
SEEDED = "seeded"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
# Enough records in `rich` for several pages of any small size, and names that sort
# differently from their creation order.
COUNTS = {"default": (3, 2, 1), "rich": (45, 12, 3)}
KINDS = ("text", "number", "flag", "object", "list")


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.prefect_server",
        f"Prefect {VERSION} server on 127.0.0.1 with seeded variables, flows and work pools "
        "(no credentials: token null).",
        prepare,
        argv,
    )


def prefect_executable() -> Path:
    found = cache_root() / f"prefect-{VERSION}" / "venv" / "bin" / "prefect"
    if not found.is_file():
        raise StackError(f"Prefect {VERSION} is not installed at {found}: run samples/setup.sh")
    return found


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    executable = prefect_executable()
    home = data_dir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_UI_ENABLED": "false",
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{data_dir / 'prefect.db'}",
        # Settings of the environment running the tests must not reach the server.
        "PREFECT_API_URL": "",
        "PREFECT_PROFILES_PATH": str(home / "profiles.toml"),
    }
    command = [str(executable), "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    return Launch(
        command, cwd=data_dir, ready_path=HEALTH, env=env,
        login=lambda url: _seed_once(url, data_dir, seed),
    )  # fmt: skip


def _seed_once(url: str, data_dir: Path, seed: str) -> None:
    """Seed a new data directory through the API; the ready line carries no token."""
    marker = data_dir / SEEDED
    if not marker.exists():
        seed_records(url, seed)
        marker.write_text(seed + "\n")
    return None


def variable(n: int) -> dict[str, Any]:
    kind = KINDS[n % len(KINDS)]
    values: dict[str, Any] = {
        "text": f"value {n}", "number": n * 1.5, "flag": n % 2 == 0,
        "object": {"n": n, "even": n % 2 == 0}, "list": [n, n + 1],
    }  # fmt: skip
    # Names sort in another order than creation (7n mod 100 scatters them).
    return {"name": f"var_{(7 * n) % 100:02d}_{kind}", "value": values[kind], "tags": [kind]}


def flow(n: int) -> dict[str, Any]:
    return {"name": f"flow-{n:02d}", "tags": ["nightly"] if n % 3 == 0 else [],
            "labels": {"team": "data" if n % 2 else "ops"}}  # fmt: skip


def work_pool(n: int) -> dict[str, Any]:
    """Work pools are addressed by name (``/api/work_pools/{name}``), not by id."""
    return {"name": f"pool-{n:02d}", "type": "process", "concurrency_limit": n + 1}


def seed_records(url: str, seed: str) -> None:
    variables, flows, pools = COUNTS[seed]
    for n in range(variables):
        call(url, "POST", "/api/variables/", variable(n))
    for n in range(flows):
        call(url, "POST", "/api/flows/", flow(n))
    for n in range(pools):
        call(url, "POST", "/api/work_pools/", work_pool(n))


def call(url: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with _OPENER.open(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise StackError(f"{method} {path}: {exc.code} {exc.read()[:1000]!r}") from None
