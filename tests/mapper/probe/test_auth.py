"""Credentials: resolved for the wire, written only as ${VAR} references."""

from __future__ import annotations

import pytest

from mapper.probe import UsageError
from mapper.probe._auth import SecurityScheme, auth_from_headers, auth_from_spec, parse_header

ENV = {"KANBAN_TOKEN": "abc123def456", "KEY": "k-999999999"}


@pytest.mark.parametrize(
    ("text", "template", "wire", "secret"),
    [
        (
            "Authorization: Token ${KANBAN_TOKEN}",
            "Token ${KANBAN_TOKEN}",
            "Token abc123def456",
            True,
        ),
        ("Authorization: Token $KANBAN_TOKEN", "Token ${KANBAN_TOKEN}", "Token abc123def456", True),
        ("X-Api-Key: $KEY", "${KEY}", "k-999999999", True),
        ("Accept-Version: 2", "2", "2", False),
        (
            "Authorization:   Bearer literal-token-value  ",
            "Bearer literal-token-value",
            "Bearer literal-token-value",
            True,
        ),
    ],
)
def test_headers_parse(text: str, template: str, wire: str, secret: bool) -> None:
    header = parse_header(text, ENV)
    assert (header.template, header.wire, header.secret) == (template, wire, secret)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Authorization Token x", "write it as 'Name: value'"),
        ("Authorization:", "write it as 'Name: value'"),
        ("Bad Name: x", "write it as 'Name: value'"),
        ("Authorization: Token ${MISSING}", "not set: MISSING"),
    ],
)
def test_bad_headers_are_usage_errors(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_header(text, ENV)


@pytest.mark.parametrize(
    ("texts", "auth", "headers"),
    [
        (
            ["Authorization: Token ${KANBAN_TOKEN}"],
            {"type": "header", "name": "Authorization", "value": "Token ${KANBAN_TOKEN}"},
            {},
        ),
        (
            ["Authorization: Bearer $KANBAN_TOKEN"],
            {"type": "bearer", "token": "${KANBAN_TOKEN}"},
            {},
        ),
        (
            ["Authorization: Token literal-secret-value"],
            {"type": "header", "name": "Authorization", "value": "Token ${KANBAN_TOKEN}"},
            {},
        ),
        (
            ["X-Api-Key: very-literal-key", "Accept-Version: 2"],
            {"type": "header", "name": "X-Api-Key", "value": "${KANBAN_X_API_KEY}"},
            {"Accept-Version": "2"},
        ),
    ],
)
def test_mapping_credentials_are_references(
    texts: list[str], auth: dict[str, str], headers: dict[str, str]
) -> None:
    parsed = [parse_header(t, ENV) for t in texts]
    found, extra, notes = auth_from_headers(parsed, "KANBAN")
    assert (found, extra) == (auth, headers)
    literal = [t for t in texts if "$" not in t and "Accept" not in t]
    assert all("not written" in " ".join(notes) for _ in literal)
    assert "literal" not in repr((found, extra))


@pytest.mark.parametrize(
    ("scheme", "auth"),
    [
        (
            SecurityScheme("t", "apiKey", "header", "Authorization", prefix="Token"),
            {"type": "header", "name": "Authorization", "value": "Token ${APP_TOKEN}"},
        ),
        (
            SecurityScheme("k", "apiKey", "query", "api_key"),
            {"type": "query", "name": "api_key", "value": "${APP_TOKEN}"},
        ),
        (SecurityScheme("b", "http", scheme="bearer"), {"type": "bearer", "token": "${APP_TOKEN}"}),
        (
            SecurityScheme("u", "http", scheme="basic"),
            {"type": "basic", "username": "${APP_USERNAME}", "password": "${APP_PASSWORD}"},
        ),
        (SecurityScheme("o", "oauth2"), None),
        (SecurityScheme("c", "apiKey", "cookie", "session"), None),
    ],
)
def test_declared_schemes_become_references(scheme: SecurityScheme, auth: object) -> None:
    assert auth_from_spec(scheme, "APP") == auth
