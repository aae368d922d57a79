"""`a2map demo`: the whole pipeline on a real app: probe, verify, serve, and an agent's tour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx

from ._procs import ChildFailed, spawn, stop

REFUSED_BODY = {"title": "", "due": "tomorrow", "priority": "asap", "colour": "red"}
GOOD_BODY = {"title": "Buy oat milk", "priority": "high", "due": "2027-01-15", "list": "list_todo"}


def _step(text: str) -> None:
    print(f"\n== {text}", flush=True)


def _a2map(args: list[str], env: dict[str, str]) -> int:
    """One `a2map` command as a user would run it; its own output goes straight through."""
    print("$ a2map " + " ".join(args), flush=True)
    return subprocess.run([sys.executable, "-m", "mapper", *args], env=env, check=False).returncode


def _show(response: httpx.Response, limit: int = 700) -> None:
    text = response.text if len(response.text) <= limit else response.text[:limit] + " ..."
    print(f"{response.status_code} {text}")


def run_demo(*, check: bool, port: int, state: Path) -> int:
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    mapping = state / "kanban.yaml"
    _step("Start a real Django REST Framework app (samples/kanban_drf)")
    try:
        sample, info = spawn(
            [sys.executable, "-m", "samples.kanban_drf", "serve", "--port", "0", "--seed", "rich"]
        )
    except ChildFailed as exc:
        print(f"a2map demo: {exc}", file=sys.stderr)
        return 1
    runtime = None
    env = {
        **os.environ,
        "KANBAN_URL": info["url"],
        "KANBAN_TOKEN": info["token"],
        "A2APP_HOME": str(state),
    }
    try:
        print(f"{info['url']}/api/  (its own token is in $KANBAN_TOKEN)")
        _step("Probe it, read-only, into a mapping")
        header = "Authorization: Token ${KANBAN_TOKEN}"
        if _a2map(
            ["probe", info["url"], "-o", str(mapping), "--header", header, "--app-id", "kanban"],
            env,
        ):
            return 1
        _step("Prove every claim of the mapping with real reads and writes")
        if _a2map(["verify", str(mapping)], env):
            return 1
        _step("Serve it as an A2App")
        store = f"sqlite:///{state / 'store.sqlite3'}"
        cmd = [
            sys.executable,
            "-m",
            "mapper",
            "serve",
            str(mapping),
            "--port",
            str(port),
            "--store",
            store,
            "--ready-json",
        ]
        runtime, served = spawn(cmd, env=env)
        return _tour(served["url"], state, check=check, runtime=runtime)
    except ChildFailed as exc:
        print(f"a2map demo: {exc}", file=sys.stderr)
        return 1
    finally:
        if runtime is not None:
            stop(runtime)
        stop(sample)


def _tour(url: str, state: Path, *, check: bool, runtime: Any) -> int:
    token = (state / ".agent-token").read_text().strip()
    auth = {"X-A2App-Token": token, "X-A2App-Agent": "demo-agent"}
    ok = True
    with httpx.Client(base_url=url, timeout=30) as client:
        _step("An agent finds the app: identity")
        response = client.get("/api/_a2app")
        _show(response)
        ok &= response.status_code == 200 and "verified" not in response.json()
        _step("It reads what the app holds, one level at a time")
        paths = ["/api/_a2app/describe", "/api/_a2app/describe?find=cards"]
        for path in paths:
            response = client.get(path, headers=auth)
            print(f"$ GET {path}")
            _show(response)
            ok &= response.status_code == 200
        found = response.json().get("matches", [])
        entity_path = next((m["path"] for m in found if m.get("level") == "entity"), "cards/cards")
        response = client.get(f"/api/_a2app/describe/{entity_path}", headers=auth)
        print(f"$ GET /api/_a2app/describe/{entity_path}")
        _show(response)
        ok &= response.status_code == 200
        _step("It guesses wrong: every violation comes back at once, nothing reaches the app")
        print(f"$ POST /api/collections/cards/records {json.dumps(REFUSED_BODY)}")
        response = client.post("/api/collections/cards/records", json=REFUSED_BODY, headers=auth)
        _show(response, 1200)
        ok &= response.status_code == 400 and len(response.json().get("violations", [])) >= 4
        _step("It writes correctly: the stored record, read back, and the system's receipt")
        print(f"$ POST /api/collections/cards/records {json.dumps(GOOD_BODY)}")
        response = client.post("/api/collections/cards/records", json=GOOD_BODY, headers=auth)
        _show(response)
        receipt = unquote(response.headers.get("x-a2app-receipt", ""))
        print(f"X-A2App-Receipt: {receipt}")
        ok &= response.status_code == 200 and bool(receipt)
        _step("A filtered read, pushed down where the verifier proved it, checked again here")
        query = {"filter": 'priority = "urgent" && done = false', "sort": "-due", "perPage": "3"}
        response = client.get("/api/collections/cards/records", params=query, headers=auth)
        print(f"$ GET {response.request.url.raw_path.decode()}")
        _show(response)
        items = response.json().get("items", []) if response.status_code == 200 else []
        ok &= bool(items) and all(c["priority"] == "urgent" and not c["done"] for c in items)
    print(
        f"\nThe A2App surface: {url}/api/_a2app   describe: {url}/api/_a2app/describe"
        f"\nAgent token (mode 0600): {state / '.agent-token'}  -> send it as X-A2App-Token"
        f"\nThe mapping: {state / 'kanban.yaml'}  (its stamp: kanban.verified.json)"
    )
    if check:
        print("\ndemo check:", "ok" if ok else "FAILED")
        return 0 if ok else 1
    print("\nServing until Ctrl-C.", flush=True)
    try:
        runtime.wait()
    except KeyboardInterrupt:
        print("\nstopped")
    return 0
