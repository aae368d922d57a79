"""The one translation boundary between the foreign API and the protocol's error codes.

Everything the upstream can do to us becomes a `ProtocolError`, raised ``from`` the
foreign exception so the cause stays in tracebacks, never in the message::

    failure before an answer                      code (status)
    ├─ TimeoutException, deadline passed ──────── upstream_timeout (504)
    ├─ NetworkError: refused, DNS, TLS, reset ─── upstream_unavailable (502)
    ├─ RemoteProtocolError: dropped, no answer ── upstream_unavailable (502)
    │    (a write that was sent and then went unanswered also carries
    │     `outcomeUnknown: true`: it may have landed)
    ├─ link, redirect, path outside the base ──── upstream_error (502)
    └─ other httpx errors (decoding, redirects) ─ upstream_error (502)
    answer
    ├─ 2xx, JSON of the expected shape ────────── returned
    ├─ 2xx, HTML, not JSON or wrong shape ─────── upstream_error (502)
    ├─ 404 on one record (read, update, delete) ─ None, not an error
    │    (or the mapping's `notFoundStatus`, e.g. 403 where the upstream does
    │     not tell a missing record from a forbidden one)
    ├─ 401, 403 ───────────────────────────────── upstream_auth_failed (502)
    ├─ 400, 409, 422 ──────────────────────────── upstream_rejected (400), violations
    ├─ 429 ────────────────────────────────────── upstream_rate_limited (429), retryAfterSeconds
    ├─ 503 ────────────────────────────────────── upstream_unavailable (502): busy, try later
    └─ 5xx, 404 elsewhere, other 3xx/4xx ──────── upstream_error (502)

Messages never carry the runtime's credentials nor any of the foreign body's own
text: a failed or unexpected answer is told by its status, content type, method and
path; a refusal adds only the field names and messages its dialect parsed, each
redacted and capped. An upstream's error page may echo anything, credentials
included, in encodings no redaction can foresee.

A write the upstream may have carried out although the exchange failed (no answer,
a 5xx, an answer that cannot be read) is marked `outcomeUnknown: true` by
`answered_write`, so that the caller keeps its idempotency key and nobody retries
it blindly.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from runtime.mapping import Entity
from runtime.protocol import ProtocolError

from ._confine import OutsideUpstream
from ._violations import violations
from ._wire import Secrets, clean_text


class _NotFound:
    def __repr__(self) -> str:
        return "NOT_FOUND"


# The upstream's 404 for one record: an answer ("no such record"), not a failure.
NOT_FOUND: Any = _NotFound()
REJECTED_STATUSES = frozenset({400, 409, 422})
DEFAULT_RETRY_AFTER = 1


_WRITES = ("POST ", "PUT ", "PATCH ", "DELETE ")
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.ProxyError)
UNKNOWN_NOTE = " The request was sent and may have been carried out: read before retrying."


def _unknown(what: str, exc: BaseException) -> dict[str, Any]:
    """Marks a write whose fate the runtime cannot know, so nobody retries it blindly."""
    if what.startswith(_WRITES) and not isinstance(exc, _NEVER_SENT):
        return {"outcomeUnknown": True}
    return {}


@contextmanager
def translating(what: str) -> Iterator[None]:
    """Around every httpx call: foreign exceptions in, `ProtocolError` out."""
    try:
        yield
    except ProtocolError:
        raise
    except OutsideUpstream as exc:
        # Within an exchange this is a redirect: the write it answers may have landed.
        extra = {"outcomeUnknown": True} if what.startswith(_WRITES) else {}
        note = UNKNOWN_NOTE if extra else ""
        raise ProtocolError(
            "upstream_error",
            f"A link outside the upstream was refused, not followed ({what}; host {exc.host})."
            + note,
            **extra,
        ) from exc
    except (httpx.TimeoutException, TimeoutError) as exc:
        extra = _unknown(what, exc)
        note = UNKNOWN_NOTE if extra else ""
        raise ProtocolError(
            "upstream_timeout", f"The upstream app did not answer in time ({what}).{note}", **extra
        ) from exc
    except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as exc:
        extra = _unknown(what, exc)
        if extra:
            message = f"The upstream app dropped the connection without answering ({what})."
            message += UNKNOWN_NOTE
        else:
            message = f"The upstream app cannot be reached ({what}: {type(exc).__name__})."
        raise ProtocolError("upstream_unavailable", message, **extra) from exc
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:
        raise ProtocolError(
            "upstream_error", f"The upstream exchange failed ({what}: {type(exc).__name__})."
        ) from exc


def shape_error(what: str) -> ProtocolError:
    """A 2xx answer that is not the JSON the mapping describes."""
    return ProtocolError("upstream_error", f"The upstream answered unexpectedly: {what}.")


def retry_after(value: str | None, *, now: dt.datetime | None = None) -> int:
    """Seconds to wait, from ``Retry-After`` in seconds or as an HTTP date."""
    if not value:
        return DEFAULT_RETRY_AFTER
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return DEFAULT_RETRY_AFTER
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    seconds = (when - (now or dt.datetime.now(dt.UTC))).total_seconds()
    return max(0, math.ceil(seconds))


_TYPE = re.compile(r"[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+")


def content_kind(response: httpx.Response) -> str:
    """The answer's media type alone (no parameters, nothing the upstream wrote freely)."""
    media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media if _TYPE.fullmatch(media) else ("no content type" if not media else "unknown")


def _json(response: httpx.Response, what: str) -> Any:
    content_type = response.headers.get("content-type", "").lower()
    if not response.content.strip():
        return None
    if "html" in content_type:
        raise shape_error(f"an HTML page instead of JSON ({what})")
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise shape_error(f"{content_kind(response)} that is not JSON ({what})") from None


def _try_json(response: httpx.Response) -> Any:
    # Only JSON is read for field errors: free text (an error page) may echo anything.
    if "html" in response.headers.get("content-type", "").lower():
        return None
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def interpret(
    response: httpx.Response,
    *,
    what: str,
    secrets: Secrets,
    errors: str,
    entity: Entity | None = None,
    wrap: tuple[str, ...] = (),
    not_found_is_none: bool = False,
    not_found_status: int = 404,
) -> Any:
    """The parsed JSON of a successful answer, `NOT_FOUND`, or a `ProtocolError`."""
    status = response.status_code
    if 200 <= status < 300:
        return _json(response, what)
    if status == not_found_status and not_found_is_none:
        return NOT_FOUND
    if status in (401, 403):
        # No excerpt: an auth failure page may describe or echo the credentials.
        raise ProtocolError(
            "upstream_auth_failed",
            f"The upstream app refused the runtime's credentials (HTTP {status}, {what}); "
            "the owner must fix them.",
        )
    if status == 404 and not_found_is_none:
        return NOT_FOUND
    if status == 429:
        seconds = retry_after(response.headers.get("retry-after"))
        raise ProtocolError(
            "upstream_rate_limited",
            f"The upstream app is rate limiting ({what}); retry after {seconds} s.",
            retryAfterSeconds=seconds,
        )
    if status == 503:
        raise ProtocolError(
            "upstream_unavailable",
            f"The upstream app is unavailable for now (HTTP 503 to {what}); try again later.",
        )
    if status in REJECTED_STATUSES:
        found = violations(
            errors, _try_json(response), entity=entity, wrap=wrap,
            clean=lambda text: clean_text(text, secrets),
        )  # fmt: skip
        if not found:
            found = [{"code": "upstream_rejected", "field": None, "expected": f"HTTP {status}"}]
        first = found[0]
        raise ProtocolError(
            "upstream_rejected",
            f"The upstream app refused the values ({what}): {first['expected']}",
            field=first["field"],
            expected=first["expected"],
            violations=found,
        )
    raise ProtocolError(
        "upstream_error",
        f"The upstream app answered HTTP {status} ({content_kind(response)}) to {what}.",
    )


# Answers to a write that prove it was not carried out: a refusal, or no such route.
_NOT_WRITTEN = REJECTED_STATUSES | {401, 403, 404, 405, 410, 429, 501}


@contextmanager
def answered_write(response: httpx.Response) -> Iterator[None]:
    """Around reading the answer to a write: a failure the write may have survived
    (a 5xx, an unreadable 2xx, a read that follows it) is marked `outcomeUnknown`."""
    try:
        yield
    except ProtocolError as exc:
        if response.status_code in _NOT_WRITTEN or exc.extra.get("outcomeUnknown"):
            raise
        raise exc.adding(UNKNOWN_NOTE, outcomeUnknown=True) from exc


def unproven_unreferenced(entity: str, limit: int) -> ProtocolError:
    """A restricting-reference scan cut at the scan limit before it found a referrer."""
    return ProtocolError(
        "upstream_error",
        f"Cannot prove that no {entity} record references this one within "
        f"{limit} records; nothing was deleted.",
    )


def delete_not_done(entity: str, record_id: str) -> ProtocolError:
    """The upstream answered a delete, and the record is still there."""
    return ProtocolError(
        "upstream_error",
        f"The upstream app answered the delete, but {entity} record {record_id!r} "
        "is still there. Do NOT report it deleted.",
    )
