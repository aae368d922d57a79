"""Signature schemes of inbound webhooks: each proves that a delivery was signed with
the hook's secret, over the raw body bytes, and names the delivery.

The name becomes the event's dedup key, so a replayed delivery raises nothing new. A
scheme is one function in `SCHEMES`; another sender's convention is one more entry
(and one more value of `scheme` in the mapping schema).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Callable, Mapping

from runtime.mapping import Hook


class BadSignature(Exception):
    """Why a delivery is refused, in words that never hold the secret or the body."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# (hook, lower-cased headers, raw body, now in Unix seconds) -> the delivery's name
Verify = Callable[[Hook, Mapping[str, str], bytes, float], str]


def _raw(text: str) -> bytes:
    # headers are read as latin-1 (_http.headers_of): this gives back the bytes sent
    return text.encode("latin-1")


def _sign(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


def whsec_key(secret: str) -> bytes:
    """The key of a `whsec_<base64>` secret (the prefix is optional, as in the spec's SDKs)."""
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError):
        raise BadSignature("the hook's secret is not whsec_<base64>") from None


def standard_webhooks(hook: Hook, headers: Mapping[str, str], body: bytes, now: float) -> str:
    """Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64>` entries
    (several during a key rotation), each an HMAC-SHA256 of `{id}.{timestamp}.{body}`."""
    msg_id = headers.get("webhook-id", "")
    stamp = headers.get("webhook-timestamp", "")
    signatures = headers.get("webhook-signature", "")
    if not (msg_id and stamp and signatures):
        raise BadSignature("webhook-id, webhook-timestamp or webhook-signature is missing")
    # at most 12 digits: a longer number would not fit the float it is compared as
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12):
        raise BadSignature("webhook-timestamp is not Unix seconds")
    # both ways: a timestamp far ahead is as suspect as a stale one
    if abs(now - int(stamp)) > hook.tolerance:
        raise BadSignature(f"webhook-timestamp is more than {hook.tolerance} s from now")
    signed = _raw(msg_id) + b"." + _raw(stamp) + b"." + body
    expected = base64.b64encode(_sign(whsec_key(hook.secret), signed))
    matched = False
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        # every entry is compared, so the time taken does not say which one matched
        matched |= version == "v1" and hmac.compare_digest(_raw(value), expected)
    if not matched:
        raise BadSignature("no v1 signature matches")
    return msg_id


def hmac_sha256(hook: Hook, headers: Mapping[str, str], body: bytes, now: float) -> str:
    """One header (`hook.header`) holding `prefix` + the HMAC-SHA256 of the raw body keyed by
    the secret's UTF-8 bytes, in hex or base64. There is no delivery id or timestamp, so
    the signature names the delivery: the same body signed again is the same delivery."""
    assert hook.header is not None, "the mapping's semantics require a header"
    got = headers.get(hook.header.lower(), "")
    if not got.startswith(hook.prefix) or len(got) == len(hook.prefix):
        raise BadSignature(f"{hook.header} is missing or not {hook.prefix}<signature>")
    digest = _sign(hook.secret.encode("utf-8"), body)
    value = got[len(hook.prefix) :].strip()
    if hook.encoding == "hex":
        expected, value = digest.hex(), value.lower()
    else:
        expected = base64.b64encode(digest).decode("ascii")
    if not hmac.compare_digest(_raw(value), expected.encode("ascii")):
        raise BadSignature(f"{hook.header} does not match")
    return expected


SCHEMES: dict[str, Verify] = {
    "standard-webhooks": standard_webhooks,
    "hmac-sha256": hmac_sha256,
}
