"""Routes the upstream's own spec declares and the upstream answers 404: not implemented.

A mapping drawn from a spec says what the spec says. When the server answers 404 to
such a route while the record it names reads fine (or the route names no record),
the server does not implement it: the claim is not proven, and what it covers is
withheld from serving with that reason (`NotRouted`), instead of failing the run
as a wrong mapping.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.mapping import Evidence
from runtime.protocol import ProtocolError

from ._failures import NotRouted
from ._wire import last

SPEC_SOURCES = frozenset({"openapi", "swagger"})


def declared_by_spec(evidence: Iterable[Evidence]) -> bool:
    return any(e.source in SPEC_SOURCES for e in evidence)


def answered_404(method: str) -> bool:
    """The last exchange of this check with `method` was answered 404."""
    exchange = last(method)
    return exchange is not None and exchange.status == 404


def not_routed(what: str, method: str, *, op: str | None = None) -> NotRouted:
    return NotRouted(
        f"not implemented by the upstream: {what} answers 404 to {method}, a route its "
        "spec declares; withheld from serving",
        op=op,
    )


def not_about_the_claim(exc: ProtocolError) -> bool:
    """A failure that says nothing of the claim under check: the runtime refused its own
    call, or the upstream is unreachable, timing out, or rate-limiting (the runner
    retries and paces those, and reports them as nobody's fault)."""
    return (
        not exc.from_upstream
        or exc.unreachable
        or exc.is_("upstream_unavailable", "upstream_rate_limited")
    )
