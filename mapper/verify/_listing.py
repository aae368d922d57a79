"""Reading what is there, for checks that need records: the walk, or the first page."""

from __future__ import annotations

from typing import Any

from runtime.mapping import Entity
from runtime.protocol import ProtocolError
from runtime.upstream import to_protocol

from ._context import Ctx, Snapshot
from ._failures import (
    LinkOutsideUpstream,
    ListDuplicates,
    NotProven,
    PathNotFound,
    UpstreamMisbehaved,
    VerificationFailure,
)
from ._routes import not_about_the_claim
from ._wire import evidence, last

NO_WALK = "the listing cannot be walked (see the listing check)"


def walk_failure(entity: Entity, exc: ProtocolError) -> VerificationFailure:
    """What a failed walk says about the upstream, as a typed failure."""
    where = evidence("GET")
    if "outside the upstream" in exc.message:
        return LinkOutsideUpstream(
            f"listing {entity.name}: {exc.message} The verifier, like the runtime, follows "
            "links only within the upstream base URL and contacted no other host.",
            fix="none in the mapping: the upstream must send next links under its own base "
            "URL (behind a proxy, set its public URL to the one in upstream.baseUrl)",
            **where,
        )
    if "repeats itself" in exc.message:
        return ListDuplicates(
            f"listing {entity.name}: {exc.message}",
            fix="check upstream.pagination (page/size parameter names); if they are right, "
            "the upstream's paging is unstable and cannot be served",
            **where,
        )
    answered = last("GET")
    if answered is not None and answered.status == 404:
        # The path is the mapping's own claim (a typo, a route the probe misread, or one
        # a spec declares and the upstream lacks): either way the mapping must change.
        return PathNotFound(
            f"listing {entity.name}: the upstream answers 404 at GET {entity.path}",
            fix=f"check entities.{entity.name}.path (and detailPath) against the upstream's routes",
            **where,
        )
    return UpstreamMisbehaved(
        f"listing {entity.name}: {exc.message}",
        fix="check upstream.pagination and the entity path against what the upstream answers",
        **where,
    )


async def walked(ctx: Ctx, entity: Entity) -> Snapshot:
    """The whole listing, or NotProven when it cannot be walked (its own check says why)."""
    try:
        return await ctx.snapshot(entity)
    except ProtocolError as exc:
        if not_about_the_claim(exc):
            raise
        raise NotProven(NO_WALK) from None


async def some_records(ctx: Ctx, entity: Entity) -> list[dict[str, Any]]:
    """Records to read: from the walk, else from the first page as the upstream sent it."""
    try:
        return (await ctx.snapshot(entity)).records
    except ProtocolError as exc:
        if not_about_the_claim(exc) or exc.is_("upstream_auth_failed"):
            raise
    post = entity.list_method == "POST"
    body = await ctx.client.call(entity.list_method, entity.list_path, json={} if post else None)
    items: Any = body
    for part in ctx.client.pagination_of(entity).items:
        items = items.get(part) if isinstance(items, dict) else None
    if not isinstance(items, list):
        raise NotProven(NO_WALK)
    try:
        return [to_protocol(entity, item) for item in items if isinstance(item, dict)]
    except ProtocolError:
        raise NotProven(NO_WALK) from None


def unknown_id(ctx: Ctx, entity: Entity) -> str:
    """An id no record has: numeric where the upstream's ids are numbers."""
    return "2147483646" if entity.id_type == "integer" else f"a2v-missing-{ctx.run_id}"
