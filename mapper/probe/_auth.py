"""Credentials: resolved for the wire, written to the mapping only as ``${VAR}``.

``--header 'Authorization: Token ${KANBAN_TOKEN}'`` sends the token and writes
``value: "Token ${KANBAN_TOKEN}"``. A header given as a literal secret is still
sent, but the mapping gets a reference named after the app
(``${<APP>_TOKEN}``), and the owner is told which variable to set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ._errors import UsageError

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_SECRET_NAME = re.compile(r"auth|token|key|secret|cookie|session|password|credential", re.I)
_SCHEME = re.compile(r"^(Token|Bearer|Basic|Api-Key|ApiKey|JWT)\s+(\S.*)$", re.I)
_PREFIX_IN_TEXT = re.compile(r"prefix\s+[\"'`]?([A-Za-z-]+)[\"'`]?", re.I)


@dataclass(frozen=True, slots=True)
class HeaderArg:
    """One ``--header``: its name, its mapping template, and the value for the wire."""

    name: str
    template: str
    wire: str
    secret: bool

    @property
    def referenced(self) -> bool:
        return "${" in self.template


@dataclass(frozen=True, slots=True)
class SecurityScheme:
    """An OpenAPI security scheme, reduced to where a credential travels."""

    key: str
    kind: str  # apiKey | http | oauth2 | openIdConnect
    where: str | None = None  # header | query | cookie
    param: str | None = None
    scheme: str | None = None  # basic | bearer
    prefix: str | None = None


def parse_header(text: str, env: Mapping[str, str]) -> HeaderArg:
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not _HEADER_NAME.match(name) or not value:
        raise UsageError(f"--header {text.split(':', 1)[0]!r}: write it as 'Name: value'")
    missing: list[str] = []

    def wire(match: re.Match[str]) -> str:
        var = match.group(1) or match.group(2)
        found = env.get(var, "")
        if not found:
            missing.append(var)
        return found

    resolved = _REF.sub(wire, value)
    if missing:
        names = ", ".join(dict.fromkeys(missing))
        raise UsageError(f"--header {name}: environment variable(s) not set: {names}")
    template = _REF.sub(lambda m: "${" + (m.group(1) or m.group(2)) + "}", value)
    return HeaderArg(name, template, resolved, bool(_SECRET_NAME.search(name)))


def parse_headers(texts: Sequence[str], env: Mapping[str, str]) -> list[HeaderArg]:
    headers = [parse_header(text, env) for text in texts]
    names = [h.name.lower() for h in headers]
    duplicate = next((h.name for h in headers if names.count(h.name.lower()) > 1), None)
    if duplicate is not None:
        raise UsageError(f"--header {duplicate} given more than once")
    return headers


def _var_for(header: str, prefix: str) -> str:
    if header.lower() == "authorization":
        return f"{prefix}_TOKEN"
    return f"{prefix}_" + re.sub(r"[^A-Za-z0-9]+", "_", header).strip("_").upper()


def _templated(header: HeaderArg, prefix: str, notes: list[str]) -> str:
    """The header value with every secret part a reference; literals are replaced."""
    if header.referenced or not header.secret:
        return header.template
    var = _var_for(header.name, prefix)
    match = _SCHEME.match(header.template)
    notes.append(
        f"auth: the literal value of header {header.name} was sent but not written; "
        f"set {var} before serving"
    )
    return f"{match.group(1)} ${{{var}}}" if match else f"${{{var}}}"


def auth_from_headers(
    headers: Sequence[HeaderArg], prefix: str
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """``upstream.auth``, ``upstream.headers`` and notes, from the given headers."""
    notes: list[str] = []
    auth: dict[str, str] = {"type": "none"}
    extra: dict[str, str] = {}
    for header in headers:
        value = _templated(header, prefix, notes)
        if auth["type"] == "none" and header.secret:
            bearer = re.fullmatch(r"Bearer (\$\{[A-Za-z_][A-Za-z0-9_]*\})", value)
            if bearer and header.name.lower() == "authorization":
                auth = {"type": "bearer", "token": bearer.group(1)}
            else:
                auth = {"type": "header", "name": header.name, "value": value}
            notes.append(f"upstream.auth: header {header.name} (given: --header)")
        else:
            extra[header.name] = value
    return auth, extra, notes


def prefix_from(description: str | None) -> str | None:
    """drf-spectacular says: 'Token-based authentication with required prefix "Token"'."""
    match = _PREFIX_IN_TEXT.search(description or "")
    return match.group(1) if match else None


def auth_from_spec(scheme: SecurityScheme, prefix: str) -> dict[str, str] | None:
    """The mapping's auth for a declared scheme, with a variable named after the app."""
    token = f"${{{prefix}_TOKEN}}"
    if scheme.kind == "http" and scheme.scheme == "bearer":
        return {"type": "bearer", "token": token}
    if scheme.kind == "http" and scheme.scheme == "basic":
        return {
            "type": "basic",
            "username": f"${{{prefix}_USERNAME}}",
            "password": f"${{{prefix}_PASSWORD}}",
        }
    if scheme.kind == "apiKey" and scheme.where in ("header", "query") and scheme.param:
        value = f"{scheme.prefix} {token}" if scheme.prefix else token
        return {"type": scheme.where, "name": scheme.param, "value": value}
    return None
