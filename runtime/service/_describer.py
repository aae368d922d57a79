"""Describe levels that read only the model, rendered once per caller's reach."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

from runtime.protocol import Caller

MODEL_CACHE_SIZE = 512


class Describer:
    """The model is frozen for the life of the process: a level that reads nothing else
    depends only on its key and the caller's scopes, so its bytes are kept."""

    def __init__(self, size: int = MODEL_CACHE_SIZE) -> None:
        self._size = size
        self._cache: dict[tuple[Hashable, ...], bytes] = {}

    def level(
        self, key: tuple[Hashable, ...], caller: Caller, build: Callable[[], dict[str, Any]]
    ) -> bytes:
        full_key = (*key, caller.scopes)
        body = self._cache.get(full_key)
        if body is None:
            body = json.dumps(build(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            if len(self._cache) >= self._size:
                self._cache.clear()
            self._cache[full_key] = body
        return body
