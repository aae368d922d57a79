"""A Rails API app (``rails_app/``) serving the kanban data, run by puma.

The app is written by hand against the system's gems (Debian: ruby-rails, bundler, puma,
ruby-sqlite3, ruby-kaminari; installed by ``samples/setup.sh``), so it works with
whatever Rails version the distribution ships (6.1 on Debian 12). It is built once into
``<cache>/rails/<key>`` (key: a hash of ``rails_app/`` and the installed gem versions):
copied, then ``bundle lock --local`` (no network). A seeded SQLite database is built once
per seed next to it with ``bin/build-db`` and copied for each new data directory.

Each new data directory gets a random token (kept in ``DATA/token`` and reused with the
database); requests need ``Authorization: Token <token>`` (or ``Bearer <token>``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import tempfile
from pathlib import Path

from samples.stacks_common.launch import Launch, StackError, cache_root, run_checked
from samples.stacks_common.launch import main as launch_main

from .seed import rails_seed

SOURCE = Path(__file__).resolve().parent / "rails_app"
DB_FILENAME = "kanban.sqlite3"
TOKEN_FILENAME = "token"
GEMS = ("railties", "activerecord", "actionpack", "puma", "sqlite3", "kaminari")
SETUP_HINT = "install Rails with `bash samples/setup.sh` (as root)"
VERSIONS_SCRIPT = (
    "puts RUBY_VERSION; ARGV.each { |n| puts Gem::Specification.find_by_name(n).full_name }"
)


def main(argv: list[str] | None = None) -> int:
    return launch_main(
        "python -m samples.rails_kanban",
        "Kanban Rails API (puma) on 127.0.0.1; send 'Authorization: Token <token>'.",
        prepare,
        argv,
    )


def prepare(data_dir: Path, seed: str, port: int) -> Launch:
    ruby, puma = _tool("ruby"), _tool("puma")
    app = app_dir(ruby)
    db = data_dir / DB_FILENAME
    token_file = data_dir / TOKEN_FILENAME
    if not db.exists():
        _copy_atomic(template(app, ruby, seed), db)
        token_file.unlink(missing_ok=True)
    if not token_file.exists():
        token_file.write_text(secrets.token_hex(20))
        token_file.chmod(0o600)
    token = token_file.read_text().strip()
    env = {**rails_env(app, db), "KANBAN_RAILS_TOKEN": token}
    # One puma thread: Rails 6.1's SQLite adapter begins transactions DEFERRED, so two
    # writes at once (a uniqueness check reads, then inserts) can fail the lock upgrade
    # with SQLite3::BusyException, a 500, instead of waiting; served one at a time, as
    # such an app is deployed, every write answers for itself.
    command = [puma, "-b", f"tcp://127.0.0.1:{port}", "-t", "1:1", "-e", "production"]
    return Launch([*command, "config.ru"], cwd=app, ready_path="/up", env=env, token=token)


def rails_env(app: Path, db: Path) -> dict[str, str]:
    return {
        "RAILS_ENV": "production",
        "SECRET_KEY_BASE": secrets.token_hex(64),
        "KANBAN_RAILS_DB": str(db),
        "BUNDLE_GEMFILE": str(app / "Gemfile"),
        "BUNDLE_SILENCE_ROOT_WARNING": "1",
        "BUNDLE_APP_CONFIG": str(app / ".bundle"),
    }


def app_dir(ruby: str) -> Path:
    """The built app: sources copied and the bundle resolved, once per key."""
    versions = run_checked([ruby, "-e", VERSIONS_SCRIPT, *GEMS], f"gem lookup ({SETUP_HINT})")
    digest = hashlib.sha256(versions.encode())
    for path in sorted(p for p in SOURCE.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(SOURCE)).encode() + b"\0" + path.read_bytes())
    final = cache_root() / "rails" / digest.hexdigest()[:16]
    if (final / "Gemfile.lock").exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f"{final.name}.", dir=final.parent))
    try:
        shutil.copytree(SOURCE, build, dirs_exist_ok=True)
        env = {**os.environ, **rails_env(build, build / "unused.sqlite3")}
        run_checked([_tool("bundle"), "lock", "--local"], "bundle lock --local", cwd=build, env=env)
        with contextlib.suppress(OSError):  # built meanwhile by another start
            os.replace(build, final)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return final


def template(app: Path, ruby: str, seed: str) -> Path:
    """A database with the schema and the seed loaded, built once per seed data."""
    data = json.dumps(rails_seed(seed), sort_keys=True)
    path = app / "templates" / f"{seed}-{hashlib.sha256(data.encode()).hexdigest()[:12]}.sqlite3"
    if path.exists():
        return path
    path.parent.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        (Path(tmp) / "seed.json").write_text(data)
        env = {**os.environ, **rails_env(app, Path(tmp) / DB_FILENAME), "KANBAN_RAILS_TOKEN": ""}
        command = [ruby, "bin/build-db", str(Path(tmp) / "seed.json")]
        run_checked(command, "building the seed database", cwd=app, env=env)
        _check_counts(Path(tmp) / DB_FILENAME, seed)
        os.replace(Path(tmp) / DB_FILENAME, path)
    return path


def _check_counts(db: Path, seed: str) -> None:
    expected = {table: len(rows) for table, rows in rails_seed(seed).items()}
    connection = sqlite3.connect(db)
    try:
        found = {t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in expected}
    except sqlite3.Error as exc:
        raise StackError(f"the seed database {db} is incomplete: {exc}") from None
    finally:
        connection.close()
    if found != expected:
        raise StackError(f"the seed database has {found} rows, expected {expected}")


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise StackError(f"`{name}` is not on PATH; {SETUP_HINT}")
    return found


def _copy_atomic(source: Path, target: Path) -> None:
    partial = target.with_name(f"{target.name}.partial")
    shutil.copyfile(source, partial)
    os.replace(partial, target)
