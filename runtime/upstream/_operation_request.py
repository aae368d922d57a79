"""How an operation call becomes one upstream request: path, query and body.

The runtime and the verifier both build requests here, so what is verified is
exactly what is served.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from runtime.mapping import Request
from runtime.protocol import OPAQUE_EXPECTED, ProtocolError, is_blank, js_string, steers

_PLACEHOLDER = re.compile(r"\{([^}]*)\}")


@dataclass(frozen=True, slots=True)
class OperationRequest:
    method: str
    path: str
    params: dict[str, str] | None
    json: dict[str, Any] | None


def fill_path(path: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Each placeholder becomes exactly one encoded segment; returns the unused args.

    A blank value, or one that could leave its segment (`.`, `..`, a slash, even
    encoded), is refused: it would name another resource.
    """
    rest = dict(args)
    for name in _PLACEHOLDER.findall(path):
        value = args.get(name)
        if is_blank(value) or steers(js_string(value)):
            raise ProtocolError(
                "usage",
                f"The path parameter {name!r} needs {OPAQUE_EXPECTED}, and not blank.",
                field=name,
            )
        path = path.replace("{" + name + "}", quote(js_string(value), safe=""))
        rest.pop(name, None)
    return path, rest


def operation_request(request: Request, args: Mapping[str, Any]) -> OperationRequest:
    path, rest = fill_path(request.path, args)
    if request.send == "query":
        return OperationRequest(
            request.method, path, {k: js_string(v) for k, v in rest.items()}, None
        )
    if request.send == "body":
        return OperationRequest(request.method, path, None, rest)
    return OperationRequest(request.method, path, None, None)
