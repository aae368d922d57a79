"""What the samples that seed through their own HTTP API share: a JSON call, and a data
directory built once per key in the samples cache.

``built(kind, key, marker, build)`` returns ``<cache>/<kind>/<key>``, building it first
with ``build(directory)`` when ``marker`` (a path inside it) is missing. The build runs
in a scratch directory moved in place only when complete, so an interrupted build is
never taken for a finished one, and two builds at once both end with one directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .launch import StackError, cache_root

__all__ = ["built", "json_call"]
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def json_call(
    url: str, method: str, path: str, headers: Mapping[str, str], body: Any = None
) -> Any:
    """One JSON request to a sample being built; a refusal is a `StackError` with its body."""
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **headers}
    request = urllib.request.Request(url + path, data=data, method=method, headers=sent)
    try:
        with _OPENER.open(request, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        raise StackError(f"{method} {path}: {exc.code} {exc.read()[:1000]!r}") from None


def built(kind: str, key: str, marker: str, build: Callable[[Path], None]) -> Path:
    final = cache_root() / kind / key
    if (final / marker).exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{final.name}.", dir=final.parent))
    try:
        build(scratch)
        (scratch / marker).stat()
        with contextlib.suppress(OSError):  # a concurrent build may have won
            os.replace(scratch, final)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final
