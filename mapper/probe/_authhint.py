"""Which ``--header`` to pass when every request the API answered was refused (401/403).

In order of authority: the ``WWW-Authenticate`` challenge the refusals carried (RFC
9110 names the scheme the server wants), a security scheme the spec declares, a
header name or scheme the error body mentions; else Bearer, the most common. The
value is always a reference named after the app (``${<APP>_TOKEN}``), never a secret.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ._auth import SecurityScheme, auth_from_spec

_CHALLENGE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.-]*)(?:\s|,|$)")
# Schemes a header of the form `Authorization: <Scheme> <credential>` cannot answer.
_HANDSHAKES = frozenset({"digest", "negotiate", "ntlm", "mutual", "hoba", "scram-sha-256"})
_SPELLING = {"bearer": "Bearer", "token": "Token", "basic": "Basic"}
_BODY_HEADER = re.compile(r"\b(X-[A-Za-z0-9][A-Za-z0-9-]*|Api-Key|Apikey)\b", re.IGNORECASE)
_BODY_SCHEME = re.compile(r"\b(Bearer|Token)\b")


def _from_challenges(challenges: Sequence[str], token: str) -> tuple[str, str] | None:
    for challenge in challenges:
        match = _CHALLENGE.match(challenge)
        if match is None or match.group(1).lower() in _HANDSHAKES:
            continue
        scheme = _SPELLING.get(match.group(1).lower(), match.group(1))
        why = f"the refusals carry WWW-Authenticate: {match.group(1)}"
        if scheme == "Basic":
            why += f" (set {token[2:-1]} to the base64 of user:password)"
        return f"Authorization: {scheme} {token}", why
    return None


def _from_spec(
    schemes: Mapping[str, SecurityScheme], preferred: Sequence[str], prefix: str
) -> tuple[str, str] | None:
    for key in [*preferred, *sorted(schemes)]:
        scheme = schemes.get(key)
        auth = auth_from_spec(scheme, prefix) if scheme is not None else None
        why = f"the spec's security scheme {key}"
        if auth is None or auth["type"] == "query":
            continue
        if auth["type"] == "bearer":
            return f"Authorization: Bearer {auth['token']}", why
        if auth["type"] == "basic":
            return f"Authorization: Basic ${{{prefix}_TOKEN}}", why + " (HTTP Basic)"
        return f"{auth['name']}: {auth['value']}", why
    return None


def _from_bodies(bodies: Sequence[str], token: str) -> tuple[str, str] | None:
    for body in bodies:
        named = _BODY_HEADER.search(body)
        if named is not None:
            return f"{named.group(1)}: {token}", f"an error body names {named.group(1)}"
        scheme = _BODY_SCHEME.search(body)
        if scheme is not None:
            why = f"an error body names the {scheme.group(1)} scheme"
            return f"Authorization: {scheme.group(1)} {token}", why
    return None


def header_hint(
    challenges: Sequence[str],
    bodies: Sequence[str],
    schemes: Mapping[str, SecurityScheme],
    preferred: Sequence[str],
    prefix: str,
) -> tuple[str, str]:
    """(the ``--header`` value to pass, why that one)."""
    token = f"${{{prefix}_TOKEN}}"
    return (
        _from_challenges(challenges, token)
        or _from_spec(schemes, preferred, prefix)
        or _from_bodies(bodies, token)
        or (f"Authorization: Bearer {token}", "nothing names a scheme; Bearer is the most common")
    )
