"""The `a2map` command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._lint import lint_files
from ._tokens import token_app

app = typer.Typer(
    name="a2map",
    help="Probe a foreign REST API, verify the mapping, serve it as an A2App.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Probe a foreign REST API, verify the mapping, serve it as an A2App."""


@app.command()
def lint(
    files: Annotated[list[Path], typer.Argument(help="mapping files to check", show_default=False)],
) -> None:
    """Validate mapping files offline. Exit 0 valid, 1 invalid, 2 usage."""
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
) -> None:
    """Serve a mapping as an A2App in front of its upstream."""
    from ._serve import serve_command

    raise typer.Exit(serve_command(mapping, host, port, store, ready_json))


@app.command()
def demo(
    check: Annotated[bool, typer.Option("--check", help="run the tour once and exit")] = False,
    port: Annotated[int, typer.Option(help="port for the A2App surface")] = 8765,
    state: Annotated[Path, typer.Option(help="where the demo keeps its store and token")] = Path(
        ".a2app/demo"
    ),
) -> None:
    """Start the Django sample and serve it as an A2App on loopback."""
    from ._demo import run_demo

    raise typer.Exit(run_demo(check=check, port=port, state=state))


# --- a2map token: agent grants in the runtime store (mapper/_tokens.py) ---
app.add_typer(token_app, name="token")
# --- end a2map token ---


def main() -> None:
    app()
