"""Progress on stderr while a verification runs; failures are printed as they happen."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ._report import CheckResult


class RichProgress:
    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self._task = self._bar.add_task("verifying", total=None)
        self._app = ""

    def start(self, app: str, total: int) -> None:
        self._app = app
        self._bar.update(self._task, description=f"verifying {app}", total=total)
        self._bar.start()

    def advance(self, result: CheckResult) -> None:
        self._bar.update(self._task, advance=1, description=f"{self._app}: {result.claim}")
        if result.outcome in ("failed", "error"):
            self.console.print(f"[red]✗[/red] {result.claim}: {result.note}", markup=True)

    def stop(self) -> None:
        self._bar.stop()
