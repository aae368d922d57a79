from __future__ import annotations

from types import ModuleType

import runtime.store


def test_all_lists_exactly_the_public_names() -> None:
    public = sorted(
        name
        for name, value in vars(runtime.store).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    )
    assert sorted(runtime.store.__all__) == public
