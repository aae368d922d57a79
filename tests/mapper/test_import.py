"""`a2map import`: probe, verify and serve in one unattended command, on the real Django sample.

Each import runs as an agent host runs it: a process in its own session, its
first stdout line the JSON summary, stopped by SIGTERM.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from mapper._import import NOT_WRITTEN
from runtime.mapping import load_mapping, load_stamp, stamp_path
from tests.fixtures._procs import kill_group, read_ready_line
from tests.fixtures.servers import KanbanServer, free_port
from tests.mapper.verify.support import cli_env, marked, upstream_state

ROOT = Path(__file__).resolve().parents[2]
HEADER = "Authorization: Token ${KANBAN_TOKEN}"  # expanded by a2map, from the environment
IMPORT_SECONDS = 300
SUMMARY_KEYS = {
    "ok", "url", "app", "mapping", "stamp", "tokenFile", "writesVerified", "served", "withheld",
}  # fmt: skip
WITHHELD_KEYS = {"entities", "writes", "operations", "pushdowns"}
ENTITIES = {"boards", "lists", "cards", "tags"}


def _command(url: str, tmp_path: Path, *args: str) -> list[str]:
    return [
        sys.executable, "-m", "mapper", "import", url, "--header", HEADER, "--app-id", "kanban",
        "--dir", str(tmp_path / "import"), "--port", "0", "--json", *args,
    ]  # fmt: skip


@dataclass
class Imported:
    process: subprocess.Popen[bytes]
    summary: dict[str, Any]
    err: Path

    @property
    def auth(self) -> dict[str, str]:
        token = Path(self.summary["tokenFile"]).read_text().strip()
        return {"X-A2App-Token": token}

    def get(self, path: str, **params: str) -> httpx.Response:
        return httpx.get(self.summary["url"] + path, params=params, headers=self.auth, timeout=30)

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return httpx.post(self.summary["url"] + path, json=body, headers=self.auth, timeout=30)


@contextlib.contextmanager
def importing(server: KanbanServer, tmp_path: Path, *args: str) -> Iterator[Imported]:
    err = tmp_path / "import.stderr"
    env = cli_env(server, A2APP_HOME=str(tmp_path / "home"))
    with err.open("wb") as sink:
        process = subprocess.Popen(
            _command(server.url, tmp_path, *args), stdout=subprocess.PIPE, stderr=sink, env=env,
            cwd=tmp_path, start_new_session=True,
        )  # fmt: skip
    try:
        try:
            summary = read_ready_line(process, IMPORT_SECONDS, frozenset({"url", "ok"}))
        except Exception as exc:
            raise AssertionError(f"{exc}\n{err.read_text(errors='replace')[-4000:]}") from None
        yield Imported(process, summary, err)
        os.killpg(process.pid, signal.SIGTERM)
        # A stop signal ends serving normally, as it ends `a2map serve`.
        assert process.wait(30) == 0
        assert "stopped by SIGTERM" in err.read_text()
    finally:
        kill_group(process, 5)


def test_a_read_only_import_serves_reads_and_refuses_writes(
    kanban: KanbanServer, tmp_path: Path
) -> None:
    before = upstream_state(kanban)
    with importing(kanban, tmp_path) as done:
        summary = done.summary
        assert set(summary) == SUMMARY_KEYS and summary["ok"] is True
        assert summary["app"] == "kanban" and summary["writesVerified"] is False
        mapping = Path(summary["mapping"])
        assert mapping == tmp_path / "import" / "kanban.yaml" and mapping.is_file()
        stamp = load_stamp(stamp_path(mapping))
        assert (
            stamp is not None and stamp.read_only and str(stamp_path(mapping)) == summary["stamp"]
        )
        token_file = Path(summary["tokenFile"])
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert token_file.read_text().strip() not in done.err.read_text()

        served, withheld = summary["served"], summary["withheld"]
        assert set(served["entities"]) == ENTITIES
        assert all(e == {"reads": True, "writes": False} for e in served["entities"].values())
        assert set(withheld) == WITHHELD_KEYS and withheld["entities"] == {}
        assert withheld["writes"] == {name: [NOT_WRITTEN] for name in ENTITIES}
        # operations that change data are withheld; a read-only one is served
        assert served["operations"] and set(served["operations"]).isdisjoint(withheld["operations"])

        cards = done.get("/api/collections/cards/records", perPage="500")
        assert cards.status_code == 200
        assert {c["id"] for c in cards.json()["items"]} == {str(c["id"]) for c in before["cards"]}
        write = done.post("/api/collections/tags/records", {"name": "from an agent"})
        assert (write.status_code, write.json()["code"]) == (403, "writes_not_verified")
    # read-only all the way: the probe, the verify and the refused write changed nothing
    assert upstream_state(kanban) == before


def test_verify_writes_proves_and_serves_writes(
    kanban_factory: Callable[..., KanbanServer], tmp_path: Path
) -> None:
    # the rich seed, as the demo uses: its data shows every ref the probe maps
    kanban = kanban_factory(seed="rich")
    before = upstream_state(kanban)
    with importing(kanban, tmp_path, "--verify-writes") as done:
        summary = done.summary
        assert summary["writesVerified"] is True
        assert summary["mapping"].endswith("/kanban.yaml")  # nothing needed correcting
        assert summary["withheld"] == {k: {} for k in WITHHELD_KEYS}, summary["withheld"]
        assert all(e["writes"] for e in summary["served"]["entities"].values())
        stamp = load_stamp(summary["stamp"])
        assert stamp is not None and not stamp.read_only and not stamp.partial
        created = done.post("/api/collections/tags/records", {"name": "from an agent"})
        assert created.status_code == 200, created.text
        after = upstream_state(kanban)
    assert not marked(after)  # verify cleaned up after itself
    added = [t for t in after["tags"] if t not in before["tags"]]
    assert [t["name"] for t in added] == ["from an agent"] and str(added[0]["id"]) == (
        created.json()["id"]
    )


def test_refused_claims_are_withheld_and_named(
    kanban_factory: Callable[..., KanbanServer], tmp_path: Path
) -> None:
    # Every write fails upstream (500): no correction helps, reads still hold.
    server = kanban_factory(fault="error", fault_on="writes")
    with importing(server, tmp_path, "--verify-writes") as done:
        summary = done.summary
        assert summary["mapping"].endswith("kanban.yaml")  # no correction to serve instead
        stamp = load_stamp(summary["stamp"])
        assert stamp is not None and stamp.partial
        withheld = summary["withheld"]
        assert set(withheld["writes"]) == ENTITIES and withheld["entities"] == {}
        assert "entities.cards.write.create" in withheld["writes"]["cards"]
        assert set(summary["served"]["entities"]) == ENTITIES
        assert all(not e["writes"] for e in summary["served"]["entities"].values())

        reads = done.get("/api/collections/boards/records")
        assert reads.status_code == 200 and reads.json()["totalItems"] > 0
        write = done.post("/api/collections/cards/records", {"title": "x"})
        assert (write.status_code, write.json()["code"]) == (403, "writes_not_verified")
        assert write.json()["refusedClaims"] == withheld["writes"]["cards"]
        text = done.err.read_text()
        assert "partly verified: stamp written for the proven part" in text


def test_a_correction_the_verifier_proved_is_verified_in_its_own_file_and_served(
    kanban_factory: Callable[..., KanbanServer], tmp_path: Path
) -> None:
    # The upstream silently drops `due` on writes: the fix (`due` read-only) is mechanical.
    server = kanban_factory(seed="rich", fault="drop-field", fault_on="writes")
    with importing(server, tmp_path, "--verify-writes") as done:
        summary = done.summary
        corrected = Path(summary["mapping"])
        assert corrected.name == "kanban.corrected.yaml"
        original = load_mapping(corrected.with_name("kanban.yaml"), resolve_env=False)
        fixed = load_mapping(corrected, resolve_env=False)
        assert fixed.entities["cards"].fields["due"].read_only
        assert not original.entities["cards"].fields["due"].read_only
        stamp = load_stamp(summary["stamp"])
        assert stamp is not None and not stamp.partial and summary["withheld"]["writes"] == {}
        created = done.post("/api/collections/tags/records", {"name": "after the fix"})
        assert created.status_code == 200, created.text


def test_an_unreachable_url_exits_2_with_a_json_answer(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = subprocess.run(
        _command(url, tmp_path), capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "KANBAN_TOKEN": "t", "A2APP_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is False and answer["exit"] == 2 and answer["error"]
    assert "a2map import: refused" in done.stderr
    assert not (tmp_path / "import" / "kanban.verified.json").exists()


def test_a_busy_port_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        command = _command("http://127.0.0.1:9", tmp_path)
        command[command.index("--port") + 1] = str(port)
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and f"port {port} on 127.0.0.1 is not free" in done.stderr
    assert json.loads(done.stdout)["exit"] == 2
    assert "== Probe" not in done.stderr


def test_without_json_the_summary_is_said_in_words(
    kanban_rich: KanbanServer, tmp_path: Path
) -> None:
    command = [word for word in _command(kanban_rich.url, tmp_path) if word != "--json"]
    env = cli_env(kanban_rich, A2APP_HOME=str(tmp_path / "home"))
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        # the summary is printed at once; EOF (an empty line) if the import stopped instead
        lines = [process.stdout.readline().decode().rstrip("\n") for _ in range(5)]
    finally:
        kill_group(process, 5)
    assert lines[0].startswith("Serving kanban at http://127.0.0.1:"), lines
    assert lines[1] == f"Agent token (mode 0600): {tmp_path / 'home' / '.agent-token'}"
    assert lines[2].startswith(f"Mapping: {tmp_path / 'import' / 'kanban.yaml'}")
    assert lines[3].startswith("Served: boards, cards, lists, tags; operations: ")
    assert lines[4] == f"Withheld: boards: writes refused ({NOT_WRITTEN})"
