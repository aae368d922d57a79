"""`a2map demo`: the real Django sample, served as an A2App, on loopback."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import httpx

from ._procs import ChildFailed, spawn, stop

MAPPING = Path(__file__).resolve().parents[1] / "mappings" / "kanban-drf.yaml"


def _show(
    client: httpx.Client, title: str, path: str, headers: dict[str, str] | None = None
) -> bool:
    response = client.get(path, headers=headers)
    text = response.text if len(response.text) < 600 else response.text[:600] + " ..."
    print(f"\n$ GET {path}   # {title}\n{response.status_code} {text}")
    return response.status_code == 200


def run_demo(*, check: bool, port: int, state: Path) -> int:
    python = sys.executable
    print("Starting the Django REST Framework sample (samples/kanban_drf) ...", flush=True)
    try:
        sample, info = spawn(
            [python, "-m", "samples.kanban_drf", "serve", "--port", "0", "--seed", "rich"]
        )
    except ChildFailed as exc:
        print(f"a2map demo: {exc}", file=sys.stderr)
        return 1
    runtime = None
    try:
        env = {
            **os.environ,
            "KANBAN_URL": info["url"],
            "KANBAN_TOKEN": info["token"],
            "A2APP_HOME": str(state),
        }
        store = f"sqlite:///{state / 'store.sqlite3'}"
        state.mkdir(parents=True, exist_ok=True, mode=0o700)
        print(f"Serving {MAPPING.name} in front of it ...", flush=True)
        runtime, served = spawn(
            [
                python,
                "-m",
                "mapper",
                "serve",
                str(MAPPING),
                "--port",
                str(port),
                "--store",
                store,
                "--ready-json",
                "--allow-unverified",
            ],
            env=env,
        )
        return _tour(served, state, info, check=check, runtime=runtime)
    except ChildFailed as exc:
        print(f"a2map demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if runtime is not None:
            stop(runtime)
        stop(sample)


def _tour(
    served: dict[str, Any], state: Path, info: dict[str, Any], *, check: bool, runtime: Any
) -> int:
    url = served["url"]
    token = (state / ".agent-token").read_text().strip()
    auth = {"X-A2App-Token": token}
    ok = True
    with httpx.Client(base_url=url, timeout=30) as client:
        ok &= _show(client, "identity", "/api/_a2app")
        ok &= _show(client, "what the app holds", "/api/_a2app/describe")
        ok &= _show(
            client, "one entity, its fields and operations", "/api/_a2app/describe/board/cards"
        )
        ok &= _show(
            client,
            "a filtered, sorted read (pushed down to django-filter, checked again here)",
            "/api/collections/cards/records?filter=priority%3D%22urgent%22%20%26%26%20done%3Dfalse&sort=-due&perPage=3",
        )
        ok &= _show(client, "who am I", "/api/_a2app/whoami", auth)
    print(
        f"\nThe sample's own API: {info['url']}/api/ (Authorization: Token {info['token']})"
        f"\nThe A2App surface:   {url}/api/_a2app   describe: {url}/api/_a2app/describe"
        f"\nAgent token (mode 0600): {state / '.agent-token'}  -> send it as X-A2App-Token"
    )
    if check:
        print("\ndemo check:", "ok" if ok else "FAILED")
        return 0 if ok else 1
    print("\nPress Ctrl-C to stop.", flush=True)
    try:
        runtime.wait()
    except KeyboardInterrupt:
        print("\nstopped")
    return 0
