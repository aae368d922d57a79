"""Which --header a refused probe names: the challenge, then the spec, then the body."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from mapper.probe._auth import SecurityScheme
from mapper.probe._authhint import header_hint


@dataclass(frozen=True)
class Refused:
    name: str
    header: str
    why: str
    challenges: tuple[str, ...] = ()
    bodies: tuple[str, ...] = ()
    schemes: dict[str, SecurityScheme] = field(default_factory=dict)
    preferred: tuple[str, ...] = ()


KEY = SecurityScheme("ApiKeyAuth", "apiKey", "header", "X-Api-Key")
BEARER = SecurityScheme("jwt", "http", scheme="bearer")
QUERY = SecurityScheme("key", "apiKey", "query", "api_key")
CASES = [
    Refused("Rails' token challenge", "Authorization: Token ${SHOP_TOKEN}",
            "the refusals carry WWW-Authenticate: Token",
            ('Token realm="Application"',)),
    Refused("a bearer challenge beats the spec", "Authorization: Bearer ${SHOP_TOKEN}",
            "the refusals carry WWW-Authenticate: Bearer",
            ('Bearer realm="api", error="invalid_token"',), schemes={"ApiKeyAuth": KEY}),
    Refused("basic says what the variable holds", "Authorization: Basic ${SHOP_TOKEN}",
            "the refusals carry WWW-Authenticate: Basic (set SHOP_TOKEN to the base64 of "
            "user:password)", ('Basic realm="x"',)),
    Refused("a handshake scheme is skipped for the spec's", "X-Api-Key: ${SHOP_TOKEN}",
            "the spec's security scheme ApiKeyAuth", ("Negotiate",),
            schemes={"ApiKeyAuth": KEY}),
    Refused("the scheme the spec prefers", "Authorization: Bearer ${SHOP_TOKEN}",
            "the spec's security scheme jwt", schemes={"ApiKeyAuth": KEY, "jwt": BEARER},
            preferred=("jwt",)),
    Refused("a query key cannot be a header", "X-Api-Key: ${SHOP_TOKEN}",
            "an error body names X-Api-Key", bodies=('{"error": "missing X-Api-Key header"}',),
            schemes={"key": QUERY}),
    Refused("a body naming the scheme", "Authorization: Bearer ${SHOP_TOKEN}",
            "an error body names the Bearer scheme",
            bodies=('{"message": "Provide a Bearer token"}',)),
    Refused("nothing says: Bearer", "Authorization: Bearer ${SHOP_TOKEN}",
            "nothing names a scheme; Bearer is the most common",
            bodies=('{"detail": "Forbidden"}',)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_header_a_refused_probe_names(case: Refused) -> None:
    hint = header_hint(case.challenges, case.bodies, case.schemes, case.preferred, "SHOP")
    assert hint == (case.header, case.why)
