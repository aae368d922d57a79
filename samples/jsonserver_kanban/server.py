"""json-server 0.17.4 serving the kanban data from a generated ``db.json``.

json-server comes from npm, installed by ``samples/setup.sh`` into
``<cache>/npm`` (``$A2APP_SAMPLES_CACHE``, else ``$XDG_CACHE_HOME/a2app-samples``, else
``~/.cache/a2app-samples``). It runs as ``node <prefix>/node_modules/json-server/lib/cli/
bin.js db.json --port P --host 127.0.0.1 --middlewares graceful.js`` in the data
directory and writes every change back to ``db.json`` (just after answering; the
``graceful.js`` middleware lets a pending write finish on SIGTERM). No authentication: the
token is null.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

from samples.stacks_common.dataset import Record, dataset
from samples.stacks_common.launch import Launch, StackError, cache_root
from samples.stacks_common.launch import main as launch_main

JSON_SERVER_VERSION = "0.17.4"
DB_FILENAME = "db.json"
SETUP_HINT = "run `bash samples/setup.sh` as root"
GRACEFUL_STOP = Path(__file__).resolve().parent / "graceful.js"


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.jsonserver_kanban",
        "Kanban data served by json-server 0.17.4 on 127.0.0.1 (no auth, token null).",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    node = shutil.which("node")
    if node is None:
        raise StackError(f"node is not on PATH; {SETUP_HINT}")
    db = data_dir / DB_FILENAME
    if not db.exists():
        partial = db.with_name(db.name + ".partial")
        partial.write_text(json.dumps(json_server_db(seed), indent=2) + "\n")
        partial.replace(db)
    command = [node, str(json_server_bin()), DB_FILENAME, "--port", str(port)]
    command += ["--host", "127.0.0.1", "--middlewares", str(GRACEFUL_STOP)]
    return Launch(command, cwd=data_dir, ready_path="/db")


def json_server_bin() -> Path:
    package = cache_root() / "npm" / "node_modules" / "json-server"
    try:
        version = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        raise StackError(f"json-server is not installed in {package}; {SETUP_HINT}") from None
    if version != JSON_SERVER_VERSION:
        raise StackError(f"{package} is json-server {version}, not {JSON_SERVER_VERSION}")
    return package / "lib" / "cli" / "bin.js"


def json_server_db(seed: str) -> dict[str, list[Record]]:
    """The dataset with json-server's conventions: ``boardId``/``listId``/``tagIds``."""
    data = dataset(seed)
    renames = {"board": "boardId", "list": "listId", "tags": "tagIds"}
    return {
        name: [{renames.get(k, k): _plain(v) for k, v in record.items()} for record in records]
        for name, records in data.items()
    }


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
