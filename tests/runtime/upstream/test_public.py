"""The package's public face is exactly what `__all__` says."""

from __future__ import annotations

import runtime.upstream


def test_all_lists_every_public_name() -> None:
    public = {name for name in vars(runtime.upstream) if not name.startswith("_")}
    assert set(runtime.upstream.__all__) == public
