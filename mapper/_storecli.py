"""What the store commands (`a2map token`, `a2map approvals`) share: the --store option,
opening the store and saying which one, and the exit codes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from ._exits import Exit

if TYPE_CHECKING:  # `a2map --help` loads no store
    from runtime.store import Store

StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="store URL; default $A2APP_STORE, else SQLite in $A2APP_HOME or ./.a2app",
        show_default=False,
    ),
]


@contextmanager
def opened(url: str | None, *, create: bool, missing_hint: str = "") -> Iterator[Store]:
    """The store at `url` (or the default one), named on stderr.

    `create=False` is for commands that only look at a store: a store that
    does not exist is an error (exit 1) rather than a new empty one.
    """
    from runtime.store import (
        Store,
        StoreError,
        StoreMissingError,
        StoreUrlError,
        default_store_url,
    )

    target = url or default_store_url(create=create)
    try:
        store = Store.open(target, create=create)
    except StoreUrlError as exc:
        usage(str(exc))
    except StoreMissingError as exc:
        fail(f"{exc}; nothing was created{missing_hint}")
    except StoreError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot prepare the state directory: {exc}")
    note(f"store: {store.url}")
    try:
        yield store
    except StoreError as exc:
        fail(str(exc))
    finally:
        store.close()


def echo_table(rows: Sequence[Sequence[str]]) -> None:
    """Rows as aligned columns, the first row the heading."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def note(message: str) -> None:
    typer.echo(message, err=True)


def fail(message: str) -> NoReturn:
    note(f"error: {message}")
    raise typer.Exit(Exit.STATE)


def usage(message: str) -> NoReturn:
    note(f"usage error: {message}")
    raise typer.Exit(Exit.USAGE)
