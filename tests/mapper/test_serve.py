"""`a2map serve` ends normally when it is told to stop: exit 0, and it says which signal."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

import pytest

from tests.fixtures.runtime import REPO, start_runtime

MAPPING = REPO / "mappings" / "kanban-drf.yaml"


@dataclass(frozen=True)
class Unstarted:
    """Serving needs the upstream's address, not the upstream: it is read per request."""

    url: str = "http://127.0.0.1:9"
    token: str | None = "unused"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=str)
def test_a_stop_signal_ends_serving_with_exit_0(signum: signal.Signals) -> None:
    with start_runtime(MAPPING, Unstarted()) as rt:
        os.kill(rt.pid, signum)
        assert rt.process.wait(30) == 0
        assert f"stopped by {signum.name}" in rt.stderr()
