"""The package's public face is exactly what `__all__` says (its stage packages are
submodules, not names of the face); every reason is described."""

from __future__ import annotations

from types import ModuleType

import mapper.probe
from mapper.probe import REASONS

# The transport's names load with their first use: a probe of a spec file never needs them.
LAZY = {"SAFE_METHODS", "ReadOnlyTransport"}


def test_all_lists_every_public_name() -> None:
    public = {
        name
        for name, value in vars(mapper.probe).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert set(mapper.probe.__all__) == public | LAZY
    assert all(getattr(mapper.probe, name) is not None for name in LAZY)


def test_reasons_are_kebab_codes_with_a_description() -> None:
    assert all(code == code.lower() and " " not in code and text for code, text in REASONS.items())
