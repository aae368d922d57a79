"""Fault injection, chosen once at start-up (``--fault NAME --fault-on reads|writes|all``).

The API itself looks exactly the same with or without a fault: there are no extra routes
or headers. Only requests under ``/api/`` are affected.

``hang``
    sleep ``KANBAN_HANG_SECONDS`` (60 s) before handling the request.
``error``
    answer ``500`` with an HTML body.
``html``
    answer ``200`` with ``Content-Type: text/html`` and an HTML page.
``ratelimit``
    answer ``429`` with ``Retry-After: 7`` and a JSON ``detail``.
``drop-field``
    writes to ``/api/cards/`` silently do not store ``due``; the answer is the usual
    200/201 with the record as stored. (JSON and form-encoded bodies.)
``die-mid-write``
    every write is handled and committed, then the process exits at once with
    ``os._exit`` before any answer is sent.

``--fault-on``: ``reads`` are GET, HEAD and OPTIONS; ``writes`` are all other methods;
``all`` (default) is both. ``drop-field`` and ``die-mid-write`` only ever hit writes.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable
from io import BytesIO
from urllib.parse import parse_qsl, urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

FAULTS = ("hang", "error", "html", "ratelimit", "drop-field", "die-mid-write")
FAULT_TARGETS = ("reads", "writes", "all")
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WRITE_ONLY_FAULTS = frozenset({"drop-field", "die-mid-write"})
DROPPED_CARD_FIELDS = ("due",)
RETRY_AFTER_SECONDS = 7
DIE_EXIT_CODE = 1

logger = logging.getLogger("samples.kanban_drf.faults")

ERROR_PAGE = (
    '<!doctype html>\n<html lang="en">\n<head><title>Server Error (500)</title></head>\n'
    "<body><h1>Server Error (500)</h1></body>\n</html>\n"
)
HTML_PAGE = (
    '<!DOCTYPE html>\n<html>\n<head><meta charset="utf-8"><title>Sign in</title></head>\n'
    "<body>\n<h1>Please sign in</h1>\n"
    '<form method="post" action="/login"><input name="username">'
    '<input name="password" type="password"><button>Sign in</button></form>\n'
    "</body>\n</html>\n"
)


class FaultMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.fault: str | None = getattr(settings, "KANBAN_FAULT", None) or None
        self.fault_on: str = getattr(settings, "KANBAN_FAULT_ON", "all") or "all"
        self.hang_seconds = float(getattr(settings, "KANBAN_HANG_SECONDS", 60.0))
        if self.fault is not None and self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}; expected one of {FAULTS}")
        if self.fault_on not in FAULT_TARGETS:
            raise ValueError(f"unknown fault target {self.fault_on!r}; expected {FAULT_TARGETS}")

    def _hits(self, request: HttpRequest) -> bool:
        if self.fault is None or not request.path.startswith("/api/"):
            return False
        is_write = request.method not in READ_METHODS
        if self.fault in WRITE_ONLY_FAULTS and not is_write:
            return False
        if self.fault_on == "reads":
            return not is_write
        if self.fault_on == "writes":
            return is_write
        return True

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self._hits(request):
            return self.get_response(request)
        fault = self.fault
        if fault == "hang":
            time.sleep(self.hang_seconds)
            return self.get_response(request)
        if fault == "error":
            return HttpResponse(ERROR_PAGE, status=500, content_type="text/html; charset=utf-8")
        if fault == "html":
            return HttpResponse(HTML_PAGE, status=200, content_type="text/html; charset=utf-8")
        if fault == "ratelimit":
            response = JsonResponse(
                {
                    "detail": "Request was throttled. Expected available in "
                    f"{RETRY_AFTER_SECONDS} seconds."
                },
                status=429,
            )
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
        if fault == "drop-field":
            if request.path.startswith("/api/cards/"):
                _drop_body_fields(request, DROPPED_CARD_FIELDS)
            return self.get_response(request)
        if fault == "die-mid-write":
            response = self.get_response(request)
            sys.stderr.write(
                f"fault die-mid-write: {request.method} {request.path} handled "
                f"(status {response.status_code}); exiting without answering\n"
            )
            sys.stderr.flush()
            os._exit(DIE_EXIT_CODE)
        return self.get_response(request)


def _drop_body_fields(request: HttpRequest, names: tuple[str, ...]) -> None:
    """Rewrite a JSON or form-encoded request body without the given top-level fields."""
    content_type = (request.content_type or "").lower()
    body = request.body  # reads the stream once; Django keeps the bytes
    new_body: bytes | None = None
    if content_type == "application/json" or content_type.endswith("+json"):
        try:
            data = json.loads(body or b"null")
        except ValueError:
            return
        if isinstance(data, dict) and any(name in data for name in names):
            for name in names:
                data.pop(name, None)
            new_body = json.dumps(data).encode("utf-8")
    elif content_type == "application/x-www-form-urlencoded":
        pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        kept = [(k, v) for k, v in pairs if k not in names]
        if len(kept) != len(pairs):
            new_body = urlencode(kept).encode("ascii")
    if new_body is None:
        return
    request._body = new_body  # type: ignore[attr-defined]
    request._stream = BytesIO(new_body)  # type: ignore[attr-defined]
    request.META["CONTENT_LENGTH"] = str(len(new_body))
    for attr in ("_post", "_files"):
        if hasattr(request, attr):
            delattr(request, attr)
    logger.debug("fault drop-field: dropped %s from %s %s", names, request.method, request.path)
