"""`a2map demo`: the README's demo command, end to end, on real servers.

The demo is started as a user starts it, in its own session; every test ends
by checking that no process it started is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from mapper._demo import RUN_FILES, _fresh
from runtime.store import Store
from tests.fixtures._procs import group_members, kill_group
from tests.fixtures.servers import free_port

REPO = Path(__file__).resolve().parents[2]
# Each one makes the runtime's HTTP server log a 41-byte warning; 2,000 of them are well
# over the 64 KiB a pipe holds, where a child whose stderr nobody reads stops.
FAILING_REQUESTS = 2_000
START_SECONDS = 240


def _demo(*args: str) -> list[str]:
    return [sys.executable, "-m", "mapper", "demo", *args]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _alive(pid: int) -> bool:
    """A live process `pid` (zombies are dead), or any live member of its group."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return bool(group_members(pid))
    return fields[0] != "Z" or bool(group_members(pid))


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    out: Path
    state: Path

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, marker: str, timeout: float = START_SECONDS) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.text().splitlines():
                if line.startswith(marker):
                    return line
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"no {marker!r} line; demo output:\n{self.text()[-4000:]}")

    def ready(self) -> dict[str, Any]:
        info: dict[str, Any] = json.loads(self.wait_for('{"url"'))
        return info

    def stop_with(self, signum: int) -> int:
        os.kill(self.process.pid, signum)
        return self.process.wait(60)


@contextlib.contextmanager
def running_demo(tmp_path: Path, *args: str) -> Iterator[Running]:
    out = tmp_path / "demo.out"
    state = tmp_path / "st"
    with out.open("wb") as sink:
        process = subprocess.Popen(
            _demo("--state", str(state), *args),
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=REPO,
        )
    try:
        yield Running(process, out, state)
    finally:
        kill_group(process, 10)


def _assert_nothing_left(pids: list[int]) -> None:
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:  # leave the machine clean even when the assertion fails
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    assert left == [], f"still running: {left}"


def _malformed(host: str, port: int) -> bytes:
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return answer


def _bash(line: str, env_file: Path) -> subprocess.CompletedProcess[str]:
    """A printed command pasted into a shell that loaded the demo's environment."""
    script = f". {shlex.quote(str(env_file))} && {line}"
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO, check=False
    )


def test_the_demo_survives_failing_requests_and_sigterm_stops_everything(tmp_path: Path) -> None:
    port = free_port()
    with running_demo(tmp_path, "--port", str(port), "--ready-json") as demo:
        ready = demo.ready()
        url = ready["url"]
        assert url == f"http://127.0.0.1:{port}"
        token = (demo.state / ".agent-token").read_text().strip()
        auth = {"X-A2App-Token": token}

        for _ in range(FAILING_REQUESTS):
            assert _malformed("127.0.0.1", port).startswith(b"HTTP/1.1 400")
        log = Path(ready["logs"]) / "runtime.stderr.log"
        assert log.read_text().count("Invalid HTTP request received.") >= FAILING_REQUESTS
        assert log.stat().st_size > 64 * 1024
        # still answering, and still reaching the sample through it
        assert httpx.get(f"{url}/api/_a2app", timeout=30).status_code == 200
        cards = httpx.get(f"{url}/api/collections/cards/records", headers=auth, timeout=30)
        assert cards.status_code == 200 and cards.json()["totalItems"] > 0

        for path in [*Path(ready["logs"]).iterdir(), demo.state / "env.sh"]:
            assert _mode(path) == 0o600, path
        for name in ("store.sqlite3", "store.sqlite3-wal", "store.sqlite3-shm", ".agent-token"):
            assert _mode(demo.state / name) == 0o600, name
        assert token not in demo.text()

        # the printed commands run as printed
        env_file = Path(ready["env"])
        assert demo.wait_for(". ") == f". {shlex.quote(str(env_file))}"
        curl = _bash(demo.wait_for("curl "), env_file)
        assert curl.returncode == 0 and json.loads(curl.stdout)["credentialId"] == "cred_local"
        probe = next(line for line in demo.text().splitlines() if " probe http" in line)
        assert "'Authorization: Token ${KANBAN_TOKEN}'" in probe
        elsewhere = probe.replace(str(demo.state / "kanban.yaml"), str(tmp_path / "p.yaml"))
        pasted = _bash(elsewhere, env_file)
        assert pasted.returncode == 0, pasted.stderr
        assert (tmp_path / "p.yaml").is_file()
        grants = _bash(f"{sys.executable} -m mapper token list --json", env_file)
        assert [g["id"] for g in json.loads(grants.stdout)] == ["cred_local"]

        pids = [demo.process.pid, *ready["children"].values()]
        assert ready["pid"] == demo.process.pid and all(_alive(pid) for pid in pids)
        assert demo.stop_with(signal.SIGTERM) == 0
        assert "stopped by SIGTERM" in demo.text()
        _assert_nothing_left(pids)


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGINT], ids=["SIGHUP", "SIGINT"])
def test_a_stop_signal_while_serving_stops_every_child(tmp_path: Path, signum: int) -> None:
    with running_demo(tmp_path, "--port", "0", "--ready-json") as demo:
        ready = demo.ready()
        pids = [demo.process.pid, *ready["children"].values()]
        assert demo.stop_with(signum) == 0
        assert f"stopped by {signal.Signals(signum).name}" in demo.text()
        _assert_nothing_left(pids)


def test_sigterm_in_the_middle_of_the_pipeline_stops_every_child(tmp_path: Path) -> None:
    with running_demo(tmp_path, "--port", "0") as demo:
        demo.wait_for("== Prove every claim")
        started = _children_of(demo.process.pid)
        assert started, "the demo has no child to stop"
        assert demo.stop_with(signal.SIGTERM) == 128 + signal.SIGTERM
        assert "Serving until" not in demo.text()
        _assert_nothing_left([demo.process.pid, *started])


def test_a_busy_port_fails_at_once(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            _demo("--check", "--port", str(port), "--state", str(tmp_path / "st")),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"port {port} on 127.0.0.1 is not free" in result.stderr and "--port" in result.stderr
    assert not (tmp_path / "st").exists()


def test_demo_tour_runs_against_real_servers_from_a_fresh_state(tmp_path: Path) -> None:
    state = tmp_path / "st"
    state.mkdir(mode=0o700)
    (state / ".agent-token").write_text("a2app_from_an_earlier_run\n")
    (state / ".agent-token").chmod(0o600)
    with Store.open(f"sqlite:///{state / 'store.sqlite3'}") as old:
        old.create_grant(id="cred_old", agent_name="old", scopes=["*"], token="a2app_old")
        old.reserve_idempotency_key("kanban", "data:cards", "key-1", 3600)
    result = subprocess.run(
        _demo("--check", "--port", "0", "--state", str(state)),
        capture_output=True,
        text=True,
        timeout=START_SECONDS,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "demo check: ok" in result.stdout
    assert '"schemaVersion":"sv_' in result.stdout
    token = (state / ".agent-token").read_text().strip()
    assert token != "a2app_from_an_earlier_run" and _mode(state / ".agent-token") == 0o600
    with Store.open(f"sqlite:///{state / 'store.sqlite3'}", create=False) as store:
        assert [g.id for g in store.list_grants()] == ["cred_local"]
        fresh = store.reserve_idempotency_key("kanban", "data:cards", "key-1", 3600)
        assert fresh.status == "fresh"
    for path in state.rglob("*"):
        if path.is_file() and path.suffix in (".log", ".jsonl", ".sh", ".sqlite3"):
            assert _mode(path) == 0o600, path
    assert _mode(state / "store.sqlite3") == 0o600


def test_a_new_run_removes_exactly_what_a_run_leaves(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    left = [*RUN_FILES, "audit-kanban.jsonl", "logs/runtime.stderr.log"]
    kept = ["logs/keep.txt", "notes.txt"]
    for name in left + kept:
        (tmp_path / name).write_text("x")
    _fresh(tmp_path)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()) == kept
