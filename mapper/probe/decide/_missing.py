"""What the upstream answers for one record that does not exist.

Most answer 404. Some answer 403, so as not to tell a missing record from one the
caller may not see; read as the credentials' fault, every delete would look like a
refusal and every read of a deleted record like an outage. One GET of an id no
sampled record has, at the detail route of a collection the same credentials just
listed, tells them apart: a 403 (or 410) there is written as
``upstream.notFoundStatus``, for the verifier to prove (`get_by_id` reads an id no
record has as not found).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from .._draft import EntityDraft, UpstreamDraft
from ._entities import Source
from ._steps import Live, template

# Statuses the format can declare besides 404.
OTHER_STATUSES = (403, 410)


def unused_id(src: Source) -> str:
    """An id no sampled record has: past the largest integer id, else a marked string."""
    ident = src.id_source() or "id"
    values = [v for v in src.values(ident) if v is not None]
    numbers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if numbers and len(numbers) == len(values):
        return str(max(numbers) + 1_000_003)
    taken = {str(v) for v in values}
    candidate = "a2map-no-such-record"
    while candidate in taken:
        candidate += "-0"
    return candidate


def not_found_status(
    live: Live | None,
    sources: Mapping[str, Source],
    entities: Mapping[str, EntityDraft],
    upstream: UpstreamDraft,
    notes: list[str],
) -> None:
    if live is None:
        return
    listed = [n for n in entities if sources[n].records]
    if not listed:
        return
    src = sources[listed[0]]
    route = template(src)
    answer = live.client.get(route.replace("{id}", quote(unused_id(src), safe="")))
    if answer.status in OTHER_STATUSES:
        upstream.not_found_status = answer.status
        notes.append(
            f"upstream.notFoundStatus: {answer.status} (sample: GET {route} of an id no record "
            f"has answered {answer.status} while GET {src.path} answered 200; a candidate "
            "for the verifier)"
        )
