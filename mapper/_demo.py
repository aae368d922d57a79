"""`a2map demo`: the whole pipeline on a real app: probe, verify, serve, and an agent's tour.

The pipeline is `a2map import` (with writes verified: the sample is disposable),
run as a child whose progress is shown as it happens. Every run starts from a
fresh state (store, token, audit, mapping, logs), so nothing of an earlier run
(grants, idempotency keys, approvals) leaks into it. The children's output goes
to log files; SIGTERM, SIGHUP and Ctrl-C stop them all before the demo exits.
The commands it prints can be pasted into a shell.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx

from ._exits import Exit
from ._procs import ChildFailed, Logs, exited, log_paths, ready_line, start, stop
from ._shell import a2map_line, port_problem
from ._stopping import Interrupted, Stopper

HOST = "127.0.0.1"
REFUSED_BODY = {"title": "", "due": "tomorrow", "priority": "asap", "colour": "red"}
GOOD_BODY = {"title": "Buy oat milk", "priority": "high", "due": "2027-01-15", "list": "list_todo"}
# what one run leaves in its state directory; the next run removes exactly these
RUN_FILES = (
    "store.sqlite3",
    "store.sqlite3-wal",
    "store.sqlite3-shm",
    "store.sqlite3-journal",
    ".agent-token",
    "env.sh",
    "kanban.yaml",
    "kanban.verified.json",
    "kanban.corrected.yaml",
    "kanban.corrected.verified.json",
)
# probe and verify with writes on the rich sample take well under this on a busy machine
IMPORT_SECONDS = 600.0
RUN_GLOBS = ("audit-*.jsonl", "logs/*.log")


def _step(text: str) -> None:
    print(f"\n== {text}", flush=True)


def _show(response: httpx.Response, limit: int = 700) -> None:
    text = response.text if len(response.text) <= limit else response.text[:limit] + " ..."
    print(f"{response.status_code} {text}")


@contextlib.contextmanager
def _echoed(log: Path) -> Iterator[None]:
    """Show what a child writes to `log` as it writes it, until the block ends."""
    done = threading.Event()

    def follow() -> None:
        with log.open("rb") as source:
            while True:
                chunk = source.read(65536)
                if chunk:
                    print(chunk.decode(errors="replace"), end="", flush=True)
                elif done.is_set():
                    return  # drained: everything written before the block ended is shown
                else:
                    time.sleep(0.1)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(5)


@dataclass
class Demo:
    state: Path
    port: int
    check: bool
    ready_json: bool
    stopper: Stopper
    children: list[subprocess.Popen[bytes]] = field(default_factory=list)
    serving: bool = False

    @property
    def logs(self) -> Path:
        return self.state / "logs"

    @property
    def store_url(self) -> str:
        return f"sqlite:///{self.state / 'store.sqlite3'}"

    def child(
        self, name: str, cmd: list[str], env: dict[str, str], *, echo: bool = False,
        timeout: float = 60.0,
    ) -> tuple[Logs, dict[str, Any]]:  # fmt: skip
        """Start a child and wait for its ready line; `echo` shows its stderr until then."""
        logs = log_paths(self.logs, name)
        with self.stopper.deferred():
            process = start(cmd, logs, env=env)
            self.children.append(process)
        with _echoed(logs.stderr) if echo else contextlib.nullcontext():
            info = ready_line(process, logs, timeout=timeout)
        return logs, {**info, "_pid": process.pid}


def run_demo(*, check: bool, port: int, state: Path, ready_json: bool = False) -> int:
    problem = port_problem(HOST, port)
    if problem:
        print(
            f"a2map demo: {problem}; choose another with --port N (make demo PORT=N)",
            file=sys.stderr,
        )
        return Exit.USAGE
    state = state.resolve()
    try:
        with _locked(state) as free:
            if not free:
                print(f"a2map demo: another demo is running with --state {state}", file=sys.stderr)
                return Exit.USAGE
            _fresh(state)
            with Stopper() as stopper:
                demo = Demo(state, port, check, ready_json, stopper)
                try:
                    return _pipeline(demo)
                except Interrupted as exc:
                    print(f"\nstopped by {exc}; stopping the sample and the runtime", flush=True)
                    return Exit.OK if demo.serving else exc.exit_code
                except ChildFailed as exc:
                    print(f"a2map demo: {exc}", file=sys.stderr)
                    return Exit.FAILED
                finally:
                    stopper.closing()
                    for process in reversed(demo.children):
                        stop(process)
    except OSError as exc:
        print(f"a2map demo: cannot prepare {state}: {exc}", file=sys.stderr)
        return Exit.FAILED


@contextlib.contextmanager
def _locked(state: Path) -> Iterator[bool]:
    """One demo per state directory: the next run clears what this one uses."""
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(state / ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _fresh(state: Path) -> None:
    for name in RUN_FILES:
        (state / name).unlink(missing_ok=True)
    for pattern in RUN_GLOBS:
        for path in state.glob(pattern):
            path.unlink(missing_ok=True)
    (state / "logs").mkdir(mode=0o700, exist_ok=True)


def _write_env(path: Path, values: dict[str, str]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        for name, value in values.items():
            handle.write(f"export {name}={shlex.quote(value)}\n")


def _pipeline(demo: Demo) -> int:
    state = demo.state
    _step("Start a real Django REST Framework app (samples/kanban_drf)")
    sample_cmd = [sys.executable, "-m", "samples.kanban_drf", "serve", "--port", "0"]
    sample_logs, info = demo.child("sample", [*sample_cmd, "--seed", "rich"], dict(os.environ))
    values = {
        "KANBAN_URL": info["url"],
        "KANBAN_TOKEN": info["token"],
        "A2APP_HOME": str(state),
        "A2APP_STORE": demo.store_url,
    }
    env_file = state / "env.sh"
    _write_env(env_file, values)
    env = {**os.environ, **values}
    print(f"{info['url']}/api/  (its log: {sample_logs.stderr})")
    print(
        "To run the commands below yourself while the demo serves, load its environment\n"
        "first (KANBAN_URL, KANBAN_TOKEN, A2APP_HOME, A2APP_STORE; the file is mode 0600):"
    )
    print(f". {shlex.quote(str(env_file))}")
    _step("Import it: probe, verify (with writes: the sample is disposable), serve")
    header = "Authorization: Token ${KANBAN_TOKEN}"  # expanded by a2map itself, not the shell
    args = ["import", info["url"], "--header", header, "--app-id", "kanban", "--verify-writes"]
    args += ["--dir", str(state), "--port", str(demo.port), "--store", demo.store_url, "--json"]
    print(a2map_line(args), flush=True)
    command = [sys.executable, "-m", "mapper", *args]
    runtime_logs, served = demo.child("runtime", command, env, echo=True, timeout=IMPORT_SECONDS)
    print(f"\nThe import's summary (its log: {runtime_logs.stderr}):")
    print(json.dumps({k: v for k, v in served.items() if not k.startswith("_")}, sort_keys=True))
    ok = _tour(served["url"], state)
    _summary(served["url"], state, demo.logs)
    if demo.check:
        print("\ndemo check:", "ok" if ok else "FAILED")
        return Exit.OK if ok else Exit.FAILED
    print("\nServing until Ctrl-C (or SIGTERM, SIGHUP).", flush=True)
    demo.serving = True
    if demo.ready_json:
        ready = {
            "url": served["url"],
            "pid": os.getpid(),
            "children": {"sample": info["_pid"], "runtime": served["_pid"]},
            "logs": str(demo.logs),
            "env": str(env_file),
        }
        print(json.dumps(ready), flush=True)
    return _serve(demo, {"sample": sample_logs, "runtime": runtime_logs})


def _serve(demo: Demo, logs: dict[str, Logs]) -> int:
    """Wait for a signal; a child that stops by itself ends the demo too."""
    names = dict(zip(demo.children, logs, strict=True))
    while True:
        for process, name in names.items():
            if exited(process):
                code = process.wait()
                print(
                    f"a2map demo: the {name} stopped by itself (exit {code}); "
                    f"its log: {logs[name].stderr}",
                    file=sys.stderr,
                )
                return Exit.FAILED
        time.sleep(0.5)


def _tour(url: str, state: Path) -> bool:
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
            print(f"GET {path}")
            _show(response)
            ok &= response.status_code == 200
        found = response.json().get("matches", [])
        entity_path = next((m["path"] for m in found if m.get("level") == "entity"), "cards/cards")
        response = client.get(f"/api/_a2app/describe/{entity_path}", headers=auth)
        print(f"GET /api/_a2app/describe/{entity_path}")
        _show(response)
        ok &= response.status_code == 200
        _step("It guesses wrong: every violation comes back at once, nothing reaches the app")
        print(f"POST /api/collections/cards/records {json.dumps(REFUSED_BODY)}")
        response = client.post("/api/collections/cards/records", json=REFUSED_BODY, headers=auth)
        _show(response, 1200)
        ok &= response.status_code == 400 and len(response.json().get("violations", [])) >= 4
        _step("It writes correctly: the stored record, read back, and the system's receipt")
        print(f"POST /api/collections/cards/records {json.dumps(GOOD_BODY)}")
        response = client.post("/api/collections/cards/records", json=GOOD_BODY, headers=auth)
        _show(response)
        receipt = unquote(response.headers.get("x-a2app-receipt", ""))
        print(f"X-A2App-Receipt: {receipt}")
        ok &= response.status_code == 200 and bool(receipt)
        _step("A filtered read, pushed down where the verifier proved it, checked again here")
        query = {"filter": 'priority = "urgent" && done = false', "sort": "-due", "perPage": "3"}
        response = client.get("/api/collections/cards/records", params=query, headers=auth)
        print(f"GET {response.request.url.raw_path.decode()}")
        _show(response)
        items = response.json().get("items", []) if response.status_code == 200 else []
        ok &= bool(items) and all(c["priority"] == "urgent" and not c["done"] for c in items)
    return ok


def _summary(url: str, state: Path, logs: Path) -> None:
    token_file = state / ".agent-token"
    curl = shlex.join(["curl", "-s", "-H"])
    header = f'"X-A2App-Token: $(cat {shlex.quote(str(token_file))})"'
    names = ", ".join(sorted(p.name for p in logs.glob("*.log")))
    print(
        f"\nThe A2App surface: {url}/api/_a2app   describe: {url}/api/_a2app/describe"
        f"\nAgent token (mode 0600): {token_file}; an agent sends it as X-A2App-Token:"
        f"\n{curl} {header} {shlex.quote(url + '/api/_a2app/whoami')}"
        f"\nThe mapping: {state / 'kanban.yaml'}  (its stamp: kanban.verified.json)"
        f"\nLogs (mode 0600): {logs}/  ({names})"
    )
