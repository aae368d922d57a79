"""The `a2map` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import typer

from ._approvals import approvals_app
from ._tokens import token_app

app = typer.Typer(
    name="a2map",
    help="Probe a foreign REST API, verify the mapping, serve it as an A2App.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain help: the rich renderer labels every flag `<bool>`, as if it took a value
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """Probe a foreign REST API, verify the mapping, serve it as an A2App."""


@app.command()
def lint(
    files: Annotated[list[Path], typer.Argument(help="mapping files to check", show_default=False)],
) -> None:
    """Validate mapping files offline. Exit 0 valid, 1 invalid, 2 usage."""
    from ._lint import lint_files

    raise typer.Exit(lint_files(files))


@app.command()
def serve(
    mapping: Annotated[Path, typer.Argument(help="the mapping file to serve", show_default=False)],
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to bind; 0 picks a free one")] = 8765,
    store: Annotated[
        str | None, typer.Option(help="state store URL (default: $A2APP_STORE or a SQLite file)")
    ] = None,
    ready_json: Annotated[
        bool, typer.Option("--ready-json", help="print one JSON line when ready, for scripts")
    ] = False,
    allow_unverified: Annotated[
        bool,
        typer.Option(
            "--allow-unverified",
            help="serve a mapping without a fresh stamp from `a2map verify` (identity says so)",
        ),
    ] = False,
) -> None:
    """Serve a verified mapping as an A2App in front of its upstream."""
    from ._serve import serve_command

    raise typer.Exit(serve_command(mapping, host, port, store, ready_json, allow_unverified))


@app.command()
def mcp(
    mappings: Annotated[
        list[Path], typer.Argument(help="the mapping file(s) to serve", show_default=False)
    ],
    store: Annotated[
        str | None, typer.Option(help="state store URL (default: $A2APP_STORE or a SQLite file)")
    ] = None,
    allow_unverified: Annotated[
        bool,
        typer.Option(
            "--allow-unverified",
            help="serve a mapping without a fresh stamp from `a2map verify` (identity says so)",
        ),
    ] = False,
    token_file: Annotated[
        Path | None,
        typer.Option(
            help="agent token file, mode 0600 (default: $A2APP_TOKEN, else the local one)"
        ),
    ] = None,
) -> None:
    """Serve mappings to an MCP client on stdio (for desktop clients).

    Four fixed tools: describe, records, operation, tasks. stdout carries only
    the protocol; notes go to stderr. Exit 0 closed by the client, 2 usage.
    """
    from ._mcp import mcp_command

    raise typer.Exit(mcp_command(mappings, store, allow_unverified, token_file))


@app.command()
def demo(
    check: Annotated[bool, typer.Option("--check", help="run the tour once and exit")] = False,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="port for the A2App surface; 0 picks a free one")
    ] = 8765,
    state: Annotated[
        Path, typer.Option(help="where the demo keeps its store, token and logs (fresh each run)")
    ] = Path(".a2app/demo"),
    ready_json: Annotated[
        bool,
        typer.Option("--ready-json", help="once serving, print one JSON line (url, pids, logs)"),
    ] = False,
) -> None:
    """Start the Django sample and serve it as an A2App on loopback.

    SIGTERM, SIGHUP or Ctrl-C stop it and everything it started. Exit 0 served
    and stopped (or --check passed), 1 failed, 2 usage (e.g. the port is taken).
    """
    from ._demo import run_demo

    raise typer.Exit(run_demo(check=check, port=port, state=state, ready_json=ready_json))


# --- a2map verify ---
@app.command()
def verify(
    mapping: Annotated[Path, typer.Argument(help="the mapping file to verify", show_default=False)],
    read_only: Annotated[
        bool, typer.Option("--read-only", help="prove only what reads can prove (production)")
    ] = False,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="write the JSON report here", show_default=False)
    ] = None,
    junit_file: Annotated[
        Path | None, typer.Option("--junit", help="write JUnit XML here", show_default=False)
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="verify these entities only (repeat, or a,b); no stamp"),
    ] = None,
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope",
            help="verify and stamp these entities only (repeat, or a,b); the stamp withholds "
            "every other entity and operation as not verified",
        ),
    ] = None,
    include_destructive: Annotated[
        bool,
        typer.Option(
            "--include-destructive", help="also run destructive operations, on own records only"
        ),
    ] = False,
    write_corrected: Annotated[
        Path | None,
        typer.Option(
            "--write-corrected",
            help="write a corrected copy of the mapping here",
            show_default=False,
        ),
    ] = None,
    allow_leftovers: Annotated[
        bool,
        typer.Option(
            "--allow-leftovers",
            help="also create records of entities that cannot be deleted (a disposable "
            "upstream); the report lists what is left",
        ),
    ] = False,
    sweep_after: Annotated[
        float | None,
        typer.Option(
            "--sweep-after",
            help="sweep records of other, interrupted runs only once they started this many "
            "seconds ago, 3600 unless given (a younger run may still be going); 0 sweeps "
            "them all",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Prove every claim of a mapping against the live upstream; stamp it or refuse it.

    Exit 0 verified, 1 refused, 2 usage or upstream unreachable.
    """
    from .verify import verify_command

    raise typer.Exit(
        verify_command(
            mapping,
            read_only=read_only,
            json_file=json_file,
            junit_file=junit_file,
            only=tuple(name for value in only or () for name in value.split(",") if name),
            include_destructive=include_destructive,
            write_corrected=write_corrected,
            allow_leftovers=allow_leftovers,
            scope=tuple(name for value in scope or () for name in value.split(",") if name),
            sweep_after=sweep_after,
        )
    )


# --- end ---


# --- a2map token: agent grants in the runtime store (mapper/_tokens.py) ---
app.add_typer(token_app, name="token")
# --- end a2map token ---

# --- a2map approvals: the owner's decisions on destructive operations (mapper/_approvals.py) ---
app.add_typer(approvals_app, name="approvals")
# --- end a2map approvals ---


# --- a2map probe/diff/review ---
@app.command()
def probe(
    url: Annotated[
        str | None, typer.Argument(help="base URL of the upstream API", show_default=False)
    ] = None,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="mapping file to write", show_default=False)
    ] = Path("mapping.yaml"),
    openapi: Annotated[
        str | None,
        typer.Option("--openapi", help="OpenAPI/Swagger file or URL (else well-known paths)"),
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option("--header", help="'Name: value' sent upstream; $VAR/${VAR} from the env"),
    ] = None,
    app_id: Annotated[str | None, typer.Option("--app-id", help="the mapping's app id")] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", help="a collection path the API does not list (/cards)"),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="one JSON summary on stdout, for agent hosts")
    ] = False,
) -> None:
    """Probe an API read-only (GET, HEAD, OPTIONS) and write its mapping.

    Exit 0 mapped, 1 nothing mappable, 2 usage or unreachable.
    """
    from .probe import probe_command

    raise typer.Exit(
        probe_command(
            url,
            output,
            openapi=openapi,
            headers=header or (),
            app_id=app_id,
            collections=collection or (),
            as_json=as_json,
        )
    )


@app.command()
def diff(
    old: Annotated[Path, typer.Argument(help="the mapping before", show_default=False)],
    new: Annotated[Path, typer.Argument(help="the mapping after", show_default=False)],
) -> None:
    """Semantic changes between two mappings. Exit 0 same, 1 changed, 2 unusable."""
    from ._diff import diff_files

    raise typer.Exit(diff_files(old, new))


@app.command()
def review(
    mapping: Annotated[Path, typer.Argument(help="the mapping to review", show_default=False)],
) -> None:
    """The owner's summary: fields with evidence, and what needs a decision."""
    from ._review import review_file

    raise typer.Exit(review_file(mapping))


# --- end ---


# --- a2map import: probe, lint, verify and serve in one command (mapper/_import.py) ---
@app.command(name="import")
def import_(
    url: Annotated[str, typer.Argument(help="base URL of the app's API", show_default=False)],
    header: Annotated[
        list[str] | None,
        typer.Option("--header", help="'Name: value' sent upstream; $VAR/${VAR} from the env"),
    ] = None,
    openapi: Annotated[
        str | None,
        typer.Option("--openapi", help="OpenAPI/Swagger file or URL (else well-known paths)"),
    ] = None,
    app_id: Annotated[
        str | None, typer.Option("--app-id", help="the mapping's app id (and file name)")
    ] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", help="a collection path the API does not list (/cards)"),
    ] = None,
    verify_writes: Annotated[
        bool,
        typer.Option(
            "--verify-writes",
            help="prove and serve writes with real writes (only for a disposable app)",
        ),
    ] = False,
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to bind; 0 picks a free one")] = 8765,
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir", help="where the mapping, its stamp and corrections go (default: $A2APP_HOME)"
        ),
    ] = None,
    store: Annotated[
        str | None, typer.Option(help="state store URL (default: $A2APP_STORE or a SQLite file)")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="the summary as one JSON line on stdout")
    ] = False,
) -> None:
    """Probe, lint, verify and serve an app in one unattended command.

    Verifies read-only unless --verify-writes; serves what was proven until a
    stop signal. Exit 0 served and stopped, 1 refused (nothing proven to serve),
    2 usage or the upstream unreachable.
    """
    from runtime.store import state_dir

    from ._import import ImportOptions, import_command

    options = ImportOptions(
        url=url, headers=tuple(header or ()), openapi=openapi, app_id=app_id,
        collections=tuple(collection or ()), verify_writes=verify_writes, host=host, port=port,
        directory=directory or state_dir(), store=store, as_json=as_json,
    )  # fmt: skip
    raise typer.Exit(import_command(options))


# --- end a2map import ---


def _plain_probe(args: list[str]) -> dict[str, Any] | None:
    """`a2map probe ARGS` as typer would call the command, when every argument is in a
    plain form (a flag, ``--name value``, the URL); None for anything else (help, an
    unknown or repeated option, ``--name=value``, a value starting with ``-``), which
    typer reads itself, with its help and its errors.

    Typer checks each value with pydantic, whose import alone costs a probe of a large
    spec a seventh of its time; the plain forms need no check beyond the type.
    """
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # a shell completion request: typer's own
    # The command's parameters as typer declares them, built for this one command alone.
    alone = typer.Typer()
    alone.command()(probe)
    command: Any = typer.main.get_command(alone)
    hints = get_type_hints(probe)
    options: dict[str, Any] = {}
    argument = None
    for param in command.params:
        if param.param_type_name == "argument":
            argument = param.name
        else:
            options.update(dict.fromkeys(param.opts, param))
    values: dict[str, Any] = {}
    tokens = iter(args)
    for token in tokens:
        param = options.get(token)
        if not token or (param is None and token.startswith("-")):
            return None
        if param is None:
            if argument is None or argument in values:
                return None
            values[argument] = token
            continue
        hint = hints[param.name]
        if param.is_flag and hint is bool:
            values[param.name] = True
            continue
        value = next(tokens, "")
        if not value or value.startswith("-"):
            return None
        if param.multiple and hint == list[str] | None:
            values.setdefault(param.name, []).append(value)
        elif param.multiple or param.name in values:
            return None
        elif hint == str | None:
            values[param.name] = value
        elif hint is Path:
            values[param.name] = Path(value)
        else:
            return None
    return values


def _probe_plainly(values: dict[str, Any]) -> None:
    """The `probe` command called as typer calls it, with its exits."""
    try:
        probe(**values)
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


def main() -> None:
    if sys.argv[1:2] != ["probe"]:
        app()
        return
    values = _plain_probe(sys.argv[2:])
    # `a2map probe` holds no resource once it has answered, and tearing down the
    # interpreter (every module, class and cached object the probe loaded, one by one)
    # takes as long as writing a large mapping: the process ends once its output is out.
    try:
        if values is None:
            app()
        else:
            _probe_plainly(values)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except OSError:
                raise exc from None  # the interpreter's own exit reports what was lost
            os._exit(exc.code or 0)
        raise
