"""docs/own-app.md, run as written against the Django sample, then used as an agent would.

Every ```sh block of the walkthrough carries a marker: `env` (the variables a reader
sets; the test sets them to the sample's), `run` (each command must exit 0), `run: exit N`
(each must exit N, as the text says) or `run: background` (started and left running,
like a server in a second terminal).
The commands run in one bash process, in order, in an empty directory, with the
project's venv first on PATH, exactly as a reader would type them.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from runtime.mapping import load_stamp
from tests.fixtures._procs import kill_group
from tests.fixtures.servers import KanbanServer, free_port, start_kanban

from .markdown import DOCS, ROOT, Block, fenced_blocks

DOC = DOCS / "own-app.md"
VENV_BIN = Path(sys.executable).parent
COMMAND_TIMEOUT = 240.0
READY_TIMEOUT = 60.0
ENV_VARIABLES = {"APP_URL", "APP_TOKEN", "A2APP_PORT"}


@dataclass(frozen=True)
class Done:
    command: str
    code: int
    out: str
    err: str

    def explain(self) -> str:
        return f"$ {self.command}\nexit {self.code}\n{self.out[-3000:]}\n{self.err[-3000:]}"


class Shell:
    """One bash for the whole walkthrough, like a reader's terminal: variables carry over."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.logs = cwd.parent / "logs"
        self.logs.mkdir()
        self.count = 0
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(self.logs / "bash.err").open("wb"),
            start_new_session=True,
        )
        self.buffer = b""

    def _send(self, script: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(script.encode())
        self.process.stdin.flush()

    def _line(self, timeout: float) -> str:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no answer from the shell within {timeout:g}s")
                if selector.select(min(left, 0.5)):
                    chunk = os.read(fd, 4096)
                    if not chunk:
                        raise RuntimeError("the shell exited")
                    self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def run(self, command: str) -> Done:
        self.count += 1
        out, err = self.logs / f"{self.count}.out", self.logs / f"{self.count}.err"
        self._send(f'{{ {command}\n}} >"{out}" 2>"{err}" </dev/null\necho "__rc $?"\n')
        code = int(self._line(COMMAND_TIMEOUT).removeprefix("__rc "))
        return Done(command, code, out.read_text(errors="replace"), err.read_text(errors="replace"))

    def start(self, command: str) -> Path:
        self.count += 1
        log = self.logs / f"{self.count}.log"
        self._send(f'{{ {command}\n}} >"{log}" 2>&1 </dev/null &\necho "__pid $!"\n')
        self._line(10)
        return log

    def value(self, name: str) -> str:
        self._send(f'printf "__val %s\\n" "${name}"\n')
        return self._line(10).removeprefix("__val ")

    def close(self) -> None:
        # bash runs without job control: what it started is in its process group
        kill_group(self.process, 10.0)


def _marked_blocks() -> list[Block]:
    return [b for b in fenced_blocks(DOC.read_text()) if b.lang == "sh"]


def _wait_served(port: int, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/_a2app", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"a2map serve did not answer in {READY_TIMEOUT:g}s:\n{log.read_text()}")


@pytest.fixture
def walkthrough(tmp_path: Path) -> Iterator[tuple[KanbanServer, Shell, int]]:
    work = tmp_path / "work"
    work.mkdir()
    port = free_port()
    with start_kanban(seed="rich") as kanban:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("A2APP_", "KANBAN_"))}
        env.update(
            PATH=os.pathsep.join([str(VENV_BIN), env.get("PATH", "")]),
            PYTHONPATH=str(ROOT),
            APP_URL=kanban.url,
            APP_TOKEN=kanban.token,
            A2APP_PORT=str(port),
        )
        shell = Shell(work, env)
        try:
            yield kanban, shell, port
        finally:
            shell.close()


def test_every_shell_block_is_run_or_provided() -> None:
    blocks = _marked_blocks()
    assert {b.marker for b in blocks} == {"env", "run", "run: exit 1", "run: background"}, [
        (b.line, b.marker) for b in blocks
    ]
    (env,) = [b for b in blocks if b.marker == "env"]
    exported = {re.match(r"export (\w+)=", c).group(1) for c in env.commands()}  # type: ignore[union-attr]
    assert exported == ENV_VARIABLES


@pytest.mark.timeout(480)
def test_the_walkthrough_runs_as_written_and_the_agent_can_work(
    walkthrough: tuple[KanbanServer, Shell, int],
) -> None:
    kanban, shell, port = walkthrough
    work = shell.logs.parent / "work"
    text = DOC.read_text()
    where = shell.run("command -v a2map; python -c 'import mapper; print(mapper.__file__)'")
    assert where.out.split() == [str(VENV_BIN / "a2map"), str(ROOT / "mapper" / "__init__.py")]
    done: list[Done] = []
    for block in _marked_blocks():
        if block.marker == "run" or block.marker.startswith("run: exit "):
            code = int(block.marker.removeprefix("run: exit ")) if block.marker != "run" else 0
            for command in block.commands():
                done.append(shell.run(command))
                assert done[-1].code == code, done[-1].explain()
        elif block.marker == "run: background":
            (command,) = block.commands()
            _wait_served(port, shell.start(command))
    ran = [d.command.split()[:2] for d in done]
    for step in (["a2map", "probe"], ["a2map", "review"], ["a2map", "lint"], ["a2map", "verify"]):
        assert step in ran, step

    # the full run came last: its stamp proves writes, and its JUnit shows no failure
    stamp = load_stamp(work / "app.verified.json")
    assert stamp is not None and not stamp.read_only
    suite = ET.parse(work / "verify.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("errors") == "0"
    assert json.loads((work / "verify.json").read_text())["outcome"] == "verified"
    # the app's credential is a reference in the mapping and in no output
    assert "${APP_URL:-" + kanban.url + "}" in (work / "app.yaml").read_text()
    assert "Token ${APP_TOKEN}" in (work / "app.yaml").read_text()
    for path in [work / "app.yaml", *shell.logs.iterdir()]:
        assert kanban.token not in path.read_text(errors="replace"), path

    token = shell.value("AGENT_TOKEN")
    assert token.startswith("a2app_")
    agent = {"X-A2App-Token": token, "X-A2App-Agent": "doc-test"}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        identity = client.get("/api/_a2app").json()
        assert identity["app"]["id"] == "app" and "verified" not in identity
        whoami = client.get("/api/_a2app/whoami", headers=agent).json()
        assert (whoami["credentialId"], whoami["agentName"]) == ("cred_agent", "my-agent")
        root = client.get("/api/_a2app/describe", headers=agent).json()
        assert "cards" in {m["name"] for m in root["modules"]}

        # the doc's write landed once, with the receipt the doc quotes
        (write,) = [d for d in done if "/api/collections/cards/records" in d.command]
        quoted = re.search(r"`(Created card [^`]+)`", text)
        sent = re.search(r"(?im)^x-a2app-receipt: (.*?)\r?$", write.out)
        assert quoted is not None and sent is not None and sent.group(1) == quoted.group(1)
        found = client.get(
            "/api/collections/cards/records",
            params={"filter": 'title = "Buy oat milk"'},
            headers=agent,
        ).json()["items"]
        assert [c["list"] for c in found] == ["list_todo"]
        retry = client.post(
            "/api/collections/cards/records",
            json={"title": "Buy oat milk", "list": "list_todo"},
            headers={**agent, "Idempotency-Key": "first-card-1"},
        )
        assert retry.status_code == 409 and retry.json()["id"] == found[0]["id"]

        refused = client.post(
            "/api/collections/cards/records",
            json={"title": "", "due": "tomorrow", "colour": "red"},
            headers=agent,
        )
        assert refused.status_code == 400 and len(refused.json()["violations"]) == 3
        wrote = client.post(
            "/api/collections/cards/records",
            json={"title": "Call the plumber", "list": "list_todo"},
            headers=agent,
        )
        assert wrote.status_code == 200, wrote.text
        assert wrote.headers["x-a2app-receipt"] == 'Created card "Call the plumber": list "To Do".'
        feed = client.get("/api/_a2app/receipts", headers=agent).json()["receipts"]
        assert [r["recordId"] for r in feed][-2:] == [found[0]["id"], wrote.json()["id"]]

    audit = (work / ".a2app" / "audit-app.jsonl").read_text().splitlines()
    assert any(json.loads(line)["credential_id"] == "cred_agent" for line in audit)
    assert token not in "".join(audit)
