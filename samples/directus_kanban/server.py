"""Directus 11.1.0 serving the kanban data from SQLite.

Directus comes from npm, installed by ``samples/setup.sh`` into
``<cache>/directus-11.1.0`` (the samples cache: ``$A2APP_SAMPLES_CACHE``, else
``$XDG_CACHE_HOME/a2app-samples``, else ``~/.cache/a2app-samples``). A new data
directory is a copy of a template database built once per (seed, schema) in
``<cache>/directus``: ``directus bootstrap``, then the collections, fields, relations
and seed records made through Directus's own API, then ``date_created`` set to the
seed's times in SQLite (Directus fills it on create, whatever was sent). Each start sets
a fresh random static token on the admin user and prints it; send it as
``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import os
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
    cache_root,
    free_port,
    run_checked,
    spawn,
    stop,
    wait_ready,
)
from samples.stacks_common.launch import main as launch_main

from . import schema

VERSION = "11.1.0"
EMAIL = "admin@example.com"
HEALTH = "/server/ping"
DB_NAME = "data.db"
SETUP_HINT = "run `bash samples/setup.sh`"


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.directus_kanban",
        f"Kanban data served by Directus {VERSION} over SQLite on 127.0.0.1 (token: the "
        "admin's static token, sent as 'Authorization: Bearer <token>').",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    cli = directus_cli()
    db = data_dir / DB_NAME
    if not db.exists():
        partial = db.with_name(DB_NAME + ".partial")
        shutil.copyfile(template(cli, seed) / DB_NAME, partial)
        partial.replace(db)
    token = "dt" + secrets.token_hex(16)
    _set_token(db, token)
    _furnish(data_dir)
    return Launch(
        [_node(), str(cli), "start"],
        cwd=data_dir,
        ready_path=HEALTH,
        env=environment(data_dir, port),
        token=token,
    )


def directus_cli() -> Path:
    """The CLI of the cached Directus install, refused unless it is the pinned version.

    ``directus/cli.js`` first asks the npm registry whether a newer version exists (no
    setting turns that off), so the sample runs the API's own CLI behind it, which
    contacts nothing but the loopback."""
    modules = cache_root() / f"directus-{VERSION}" / "node_modules"
    package = modules / "directus"
    try:
        version = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        raise StackError(f"Directus is not installed in {package}; {SETUP_HINT}") from None
    if version != VERSION:
        raise StackError(f"{package} is Directus {version}, not {VERSION}; {SETUP_HINT}")
    cli = modules / "@directus" / "api" / "dist" / "cli" / "run.js"
    if not cli.is_file():
        raise StackError(f"{cli} is missing from the Directus install; {SETUP_HINT}")
    return cli


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise StackError(f"node is not on PATH; {SETUP_HINT}")
    return node


def environment(data_dir: Path, port: int) -> dict[str, str]:
    """Directus reads its whole configuration from the environment (no ``.env`` needed)."""
    return {
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "PUBLIC_URL": f"http://127.0.0.1:{port}",
        "DB_CLIENT": "sqlite3",
        "DB_FILENAME": str(data_dir / DB_NAME),
        # Signs sessions only; the sample's credential is the static token.
        "SECRET": "a2app-sample-" + hashlib.sha256(str(data_dir).encode()).hexdigest()[:24],
        "ADMIN_EMAIL": EMAIL,
        "TELEMETRY": "false",
        "CACHE_ENABLED": "false",
        "RATE_LIMITER_ENABLED": "false",
        "WEBSOCKETS_ENABLED": "false",
        "STORAGE_LOCATIONS": "local",
        "STORAGE_LOCAL_ROOT": str(data_dir / "uploads"),
        "EXTENSIONS_PATH": str(data_dir / "extensions"),
        "LOG_LEVEL": "warn",
        "LOG_STYLE": "raw",
        # No total unless asked (meta=total_count), as Directus ships.
        "QUERY_LIMIT_DEFAULT": "100",
    }


def _furnish(root: Path) -> None:
    """What Directus looks for at start (else it warns): its upload and extension
    folders, and a project ``package.json`` (extensions may be listed there)."""
    (root / "uploads").mkdir(exist_ok=True)
    (root / "extensions").mkdir(exist_ok=True)
    package = root / "package.json"
    if not package.exists():
        package.write_text('{"name": "directus-kanban", "private": true}\n')


def _set_token(db: Path, token: str) -> None:
    connection = sqlite3.connect(db)
    try:
        with connection:
            done = connection.execute(
                "UPDATE directus_users SET token = ? WHERE email = ?", (token, EMAIL)
            )
        if done.rowcount != 1:
            raise StackError(f"{db}: no Directus admin {EMAIL} to give a token")
    finally:
        connection.close()


def call(url: str, method: str, path: str, token: str = "", body: Any = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return json_call(url, method, path, headers, body)


def template(cli: Path, seed: str) -> Path:
    """A directory holding a new seeded database, built once per (seed, schema, version)."""
    digest = hashlib.sha256(f"{VERSION}\n{seed}\n".encode())
    digest.update(Path(schema.__file__).read_bytes())
    digest.update(json.dumps(schema.records(seed), sort_keys=True).encode())
    digest.update(json.dumps(schema.junction(seed)).encode())
    key = f"{seed}-{digest.hexdigest()[:16]}"
    return built("directus", key, DB_NAME, lambda root: _build(cli, seed, root))


def _build(cli: Path, seed: str, root: Path) -> None:
    port = free_port()
    token = "dt" + secrets.token_hex(16)
    env = {**environment(root, port), "ADMIN_PASSWORD": secrets.token_hex(16),
           "ADMIN_TOKEN": token}  # fmt: skip
    run_checked([_node(), str(cli), "bootstrap"], "directus bootstrap", cwd=root,
                env={**os.environ, **env}, timeout=300)  # fmt: skip
    _furnish(root)
    server = Launch([_node(), str(cli), "start"], root, HEALTH, env=env)
    child = spawn(server, root, verbose=False)
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_ready(child, port, HEALTH, time.monotonic() + 60):
            raise StackError(f"directus did not start for the template build in {root}")
        for name in (*schema.ORDER, schema.JUNCTION):
            call(url, "POST", "/collections", token, schema.collection(name))
        for many, field, one in schema.RELATIONS:
            call(url, "POST", "/relations", token, schema.relation(many, field, one))
        data = schema.records(seed)
        for name in schema.ORDER:
            rows = [{k: v for k, v in r.items() if k != "date_created"} for r in data[name]]
            if rows:
                call(url, "POST", f"/items/{name}", token, rows)
        pairs = schema.junction(seed)
        if pairs:
            call(url, "POST", f"/items/{schema.JUNCTION}", token, pairs)
    finally:
        stop(child)
    _set_times(root / DB_NAME, data)
    for leftover in ("uploads", "extensions", "package.json", "server.log"):
        target = root / leftover
        shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(True)


def _set_times(db: Path, data: dict[str, list[dict[str, Any]]]) -> None:
    """``date_created`` as the seed says, in the form Directus itself stored."""
    connection = sqlite3.connect(db)
    try:
        with connection:
            for name, rows in data.items():
                if not rows:
                    continue
                stored = connection.execute(f"SELECT date_created FROM {name} LIMIT 1").fetchone()
                connection.executemany(
                    f"UPDATE {name} SET date_created = ? WHERE id = ?",
                    [(_like(stored[0], row["date_created"]), n)
                     for n, row in enumerate(rows, start=1)],
                )  # fmt: skip
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


def _like(stored: Any, iso: str) -> Any:
    """`iso` in the representation Directus chose for SQLite (epoch ms, or text)."""
    if isinstance(stored, int):
        return calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%S.000Z")) * 1000
    return iso
