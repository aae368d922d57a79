"""Async tests here run on asyncio, the loop the verifier runs on."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
