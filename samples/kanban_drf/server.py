"""Command line and server start-up for the kanban sample API.

``python -m samples.kanban_drf serve --port PORT [--data DIR] [--seed default|rich|due-today]
[--fault NAME] [--fault-on reads|writes|all]``

Once the server listens and Django is warmed up, exactly one JSON line is printed on
stdout: ``{"url": "http://127.0.0.1:PORT", "token": "...", "pid": N}``. Everything else
goes to stderr.

A fresh database is made by copying a migrated and seeded template that is built once per
(seed, schema) in a cache directory (``$KANBAN_DRF_CACHE_DIR``, else
``$XDG_CACHE_HOME/kanban_drf``, else ``<tmp>/kanban_drf-cache-<uid>``); each server then
gets its own random API token. A dated seed (``due-today``) starts from a copy of its
base seed's template and is changed after the copy (``dated.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import logging
import os
import secrets
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .dated import DATED_SEEDS, apply_dated, base_seed
from .faults import FAULT_TARGETS, FAULTS, WRITE_ONLY_FAULTS
from .seed import SEEDS

HOST = "127.0.0.1"
DB_FILENAME = "kanban.sqlite3"
SETTINGS_MODULE = "samples.kanban_drf.settings"
PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_THREADS = 8
SHUTDOWN_GRACE_SECONDS = 1.0

log = logging.getLogger("samples.kanban_drf")


class _Stop(SystemExit):
    """Raised by the SIGTERM/SIGINT handler to leave the server loop.

    A SystemExit: waitress's event loop swallows every other exception raised while
    it handles a connection (a bare `except`), so a stop signal arriving then would
    be lost; SystemExit is the one it lets through and stops on."""


# --------------------------------------------------------------------------- command line


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {value!r}: not an integer") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {port}: must be 0..65535 (0 = any free)")
    return port


def _threads(value: str) -> int:
    try:
        threads = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid thread count {value!r}") from None
    if not 1 <= threads <= 64:
        raise argparse.ArgumentTypeError(f"invalid thread count {threads}: must be 1..64")
    return threads


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m samples.kanban_drf",
        description="Kanban REST API (Django REST Framework) on 127.0.0.1.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    serve = commands.add_parser(
        "serve",
        help="run the API server",
        description=(
            "Run the API server on 127.0.0.1. When it is ready it prints one JSON line on "
            'stdout: {"url": ..., "token": ..., "pid": ...}. Authenticate with '
            '"Authorization: Token <token>" (or Basic auth as user "admin" with the token '
            "as password). SIGTERM or SIGINT stops it."
        ),
    )
    serve.add_argument("--port", type=_port, required=True, help="TCP port; 0 picks a free one")
    serve.add_argument(
        "--data",
        metavar="DIR",
        help=(
            "directory of the SQLite database; an existing database there is reused as is "
            "(same data, same token). Default: a new temporary directory, removed on exit"
        ),
    )
    serve.add_argument(
        "--seed",
        choices=(*SEEDS, *DATED_SEEDS),
        default=os.environ.get("KANBAN_DRF_SEED") or "default",
        help="data set for a new database (default: $KANBAN_DRF_SEED, else %(default)s)",
    )
    serve.add_argument("--fault", choices=FAULTS, help="inject this fault into API requests")
    serve.add_argument(
        "--fault-on",
        choices=FAULT_TARGETS,
        default="all",
        help="requests the fault hits: reads (GET/HEAD/OPTIONS), writes or all (default)",
    )
    serve.add_argument(
        "--threads",
        type=_threads,
        default=DEFAULT_THREADS,
        help="worker threads (default: %(default)s)",
    )
    serve.add_argument(
        "--verbose", action="store_true", help="log every request and start-up timing to stderr"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.data is not None:
        data = Path(args.data)
        if data.exists() and not data.is_dir():
            parser.error(f"--data {args.data}: not a directory")
    if args.command == "serve":
        if args.seed not in (*SEEDS, *DATED_SEEDS):  # from the environment: not checked yet
            parser.error(f"KANBAN_DRF_SEED={args.seed}: not one of {', '.join(SEEDS)}, "
                         f"{', '.join(DATED_SEEDS)}")  # fmt: skip
        return serve(args)
    parser.error(f"unknown command {args.command!r}")
    return 2


# --------------------------------------------------------------------------- templates


def cache_dir() -> Path:
    explicit = os.environ.get("KANBAN_DRF_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "kanban_drf"
    return Path(tempfile.gettempdir()) / f"kanban_drf-cache-{os.getuid()}"


def _template_inputs() -> Iterable[Path]:
    yield PACKAGE_DIR / "seed.py"
    yield PACKAGE_DIR / "kanban" / "models.py"
    yield from sorted((PACKAGE_DIR / "kanban" / "migrations").glob("*.py"))


def template_path(seed: str) -> Path:
    import django

    digest = hashlib.sha256()
    digest.update(f"django={django.__version__};seed={seed}\n".encode())
    for path in _template_inputs():
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return cache_dir() / f"kanban-{seed}-{digest.hexdigest()[:16]}.sqlite3"


def _copy_atomic(source: Path, target: Path) -> None:
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        shutil.copyfile(source, partial)
        os.replace(partial, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()


def _snapshot_atomic(source: Path, target: Path) -> None:
    """Consistent copy of a SQLite database (WAL included) written via temp file + rename."""
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        src = sqlite3.connect(source)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(partial, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()


def _remove_db_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()


# --------------------------------------------------------------------------- django


def _setup_django(db_path: Path, fault: str | None, fault_on: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE
    os.environ["KANBAN_DRF_DATABASE"] = str(db_path)
    os.environ["KANBAN_DRF_FAULT"] = fault or ""
    os.environ["KANBAN_DRF_FAULT_ON"] = fault_on
    import django

    django.setup()


def _use_database(db_path: Path) -> None:
    from django.conf import settings
    from django.db import connections

    connections.close_all()
    settings.DATABASES["default"]["NAME"] = str(db_path)
    connections["default"].settings_dict["NAME"] = str(db_path)


def _migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False, skip_checks=True)


def _build_template(seed: str, template: Path, db_path: Path, fault: str | None, on: str) -> None:
    """Migrate and seed a new database, keep a snapshot as template, then use a copy."""
    from django.db import connections

    from .seed import seed_database

    template.parent.mkdir(parents=True, exist_ok=True)
    build_path = template.with_name(f"{template.name}.{os.getpid()}.build")
    _remove_db_files(build_path)
    try:
        _setup_django(build_path, fault, on)
        _migrate()
        seed_database(seed)
        connections.close_all()
        _snapshot_atomic(build_path, template)
    finally:
        connections.close_all()
        _remove_db_files(build_path)
    _copy_atomic(template, db_path)
    _use_database(db_path)


def _issue_token(reuse: bool) -> str:
    """The API token: re-read from an existing database, else a new random one."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from .seed import ADMIN_USERNAME

    user_model = get_user_model()
    user = user_model.objects.filter(username=ADMIN_USERNAME).first()
    if user is None:
        user = user_model.objects.create_superuser(
            ADMIN_USERNAME, email="admin@example.com", password=None
        )
    if reuse:
        existing = Token.objects.filter(user=user).first()
        if existing is not None:
            return str(existing.key)
    Token.objects.filter(user=user).delete()
    key = secrets.token_hex(20)
    Token.objects.create(user=user, key=key)
    user.set_password(key)
    user.save(update_fields=["password"])
    return key


WARM_UP_REQUESTS = [
    ("/api/", ""),
    ("/api/boards/", "page_size=1&name__icontains=a&ordering=-created"),
    ("/api/lists/", "page_size=1&board__isnull=false&ordering=position"),
    ("/api/cards/", "page_size=1&title__icontains=a&due__isnull=true&ordering=-due&search=a"),
    ("/api/tags/", "page_size=1"),
    ("/api/cards/finished-count/", ""),
]


def _warm_up(token: str, port: int) -> None:
    """Serve a few authenticated GETs in-process (URLconf, views, filters, serializers)."""
    from django.core.handlers.wsgi import WSGIRequest
    from django.db import connections
    from django.urls import resolve

    for path, query in WARM_UP_REQUESTS:
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "QUERY_STRING": query,
            "SERVER_NAME": HOST,
            "SERVER_PORT": str(port),
            "HTTP_HOST": f"{HOST}:{port}",
            "HTTP_AUTHORIZATION": f"Token {token}",
            "wsgi.input": io.BytesIO(b""),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
        }
        request = WSGIRequest(environ)
        match = resolve(request.path_info)
        request.resolver_match = match
        response = match.func(request, *match.args, **match.kwargs)
        response.render()
        if response.status_code != 200:
            raise RuntimeError(f"warm-up GET {path} answered {response.status_code}")
    connections.close_all()


def _access_log(app: Callable[..., Any]) -> Callable[..., Any]:
    def logged(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        started = time.monotonic()
        status: list[str] = []

        def capture(code: str, headers: Any, exc_info: Any = None) -> Any:
            status.append(code)
            return start_response(code, headers, exc_info)

        try:
            return app(environ, capture)
        finally:
            query = environ.get("QUERY_STRING")
            log.info(
                "%s %s%s %s %.1fms",
                environ.get("REQUEST_METHOD"),
                environ.get("PATH_INFO"),
                f"?{query}" if query else "",
                status[0].split(" ", 1)[0] if status else "-",
                (time.monotonic() - started) * 1000,
            )

    return logged


# --------------------------------------------------------------------------- serve


def _own_process_group() -> None:
    try:
        if os.getpgrp() != os.getpid():
            os.setpgid(0, 0)
    except OSError as exc:  # e.g. already a session leader
        log.debug("could not start a process group: %s", exc)


def _on_signal(signum: int, frame: Any) -> None:
    # Once: a second signal during the shutdown below must not interrupt it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise _Stop(signum)


def serve(args: argparse.Namespace) -> int:
    started = time.monotonic()
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    log.setLevel(logging.INFO if args.verbose else logging.WARNING)
    _own_process_group()
    if args.fault in WRITE_ONLY_FAULTS and args.fault_on == "reads":
        log.warning(
            "--fault %s only affects writes; with --fault-on reads it does nothing", args.fault
        )

    temporary = args.data is None
    if temporary:
        data_dir = Path(tempfile.mkdtemp(prefix="kanban_drf-"))
    else:
        data_dir = Path(args.data).resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
    db_path = data_dir / DB_FILENAME
    reuse = db_path.exists()
    try:
        if reuse:
            _setup_django(db_path, args.fault, args.fault_on)
            _migrate()
        else:
            seed = base_seed(args.seed)
            template = template_path(seed)
            if template.exists():
                _copy_atomic(template, db_path)
                _setup_django(db_path, args.fault, args.fault_on)
            else:
                log.info("building the %s template database %s", seed, template)
                _build_template(seed, template, db_path, args.fault, args.fault_on)
            apply_dated(args.seed)
        token = _issue_token(reuse)

        from django.core.wsgi import get_wsgi_application
        from waitress.server import create_server

        application = get_wsgi_application()
        if args.verbose:
            application = _access_log(application)
        server = create_server(
            application, host=HOST, port=args.port, threads=args.threads, asyncore_use_poll=True
        )
        port = int(server.effective_port)  # type: ignore[union-attr]
        _warm_up(token, port)

        signal.signal(signal.SIGTERM, _on_signal)
        signal.signal(signal.SIGINT, _on_signal)
        url = f"http://{HOST}:{port}"
        log.info("ready at %s in %.2fs (data in %s)", url, time.monotonic() - started, data_dir)
        sys.stdout.write(json.dumps({"url": url, "token": token, "pid": os.getpid()}) + "\n")
        sys.stdout.flush()
        try:
            server.run()
        except _Stop:
            log.info("stopping")
        finally:
            server.close()
            server.task_dispatcher.shutdown(  # type: ignore[union-attr]
                cancel_pending=True, timeout=SHUTDOWN_GRACE_SECONDS
            )
        return 0
    finally:
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        if temporary:
            shutil.rmtree(data_dir, ignore_errors=True)
