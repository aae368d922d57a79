"""The package's public face is exactly what `__all__` says; every reason is described."""

from __future__ import annotations

import mapper.probe
from mapper.probe import REASONS


def test_all_lists_every_public_name() -> None:
    public = {name for name in vars(mapper.probe) if not name.startswith("_")}
    assert set(mapper.probe.__all__) == public


def test_reasons_are_kebab_codes_with_a_description() -> None:
    assert all(code == code.lower() and " " not in code and text for code, text in REASONS.items())
