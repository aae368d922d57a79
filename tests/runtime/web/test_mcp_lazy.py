"""`/mcp` loads the MCP SDK on its first request: a runtime nobody reaches over MCP
never imports it (about 30 MB and a third of a second), nor Redis without --redis.
The gateway's behaviour itself is tested in tests/runtime/gateway."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import sys
from pathlib import Path
from fastapi.testclient import TestClient
from runtime.service import ServeOptions, build_states
from runtime.web import mount_mcp, runtime_app

options = ServeOptions(mapping_path=Path("mappings/kanban-drf.yaml"), allow_unverified=True,
                       store_url="sqlite:///" + sys.argv[1] + "/s.sqlite3",
                       state_dir=Path(sys.argv[1]))
states, _ = build_states(options)
runtime = runtime_app(states)
mount_mcp(runtime, states)
with TestClient(runtime.app, base_url="http://127.0.0.1") as client:
    assert client.get("/api/_a2app").status_code == 200
    print("before", sorted(m for m in ("mcp", "redis") if m in sys.modules))
    answer = client.post("/mcp", json={})
    print("after", answer.status_code, "mcp" in sys.modules)
"""


def test_the_mcp_sdk_is_loaded_by_the_first_mcp_request_only(tmp_path: Path) -> None:
    env = {"KANBAN_URL": "http://127.0.0.1:9", "KANBAN_TOKEN": "x", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # no bearer token: the gateway, now loaded, answers MCP's 401
    assert done.stdout.splitlines() == ["before []", "after 401 True"], done.stdout
