"""A write body or an operation's arguments, parsed and guarded, dangling refs included."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping as AbcMapping
from typing import Any

from runtime.mapping import Field
from runtime.protocol import ProtocolError, Violation, check, guard_error, parse_body, ref_ids

from . import _seen as seen
from ._clock import server_now
from ._fanout import bounded
from ._reach import Reach


async def guarded(
    reach: Reach,
    fields: AbcMapping[str, Field],
    raw: bytes | None,
    *,
    require: bool,
    write_allow: tuple[str, ...] = (),
    params: bool = False,
    update: bool = False,
) -> dict[str, Any]:
    """The body, parsed and guarded, with every violation (dangling refs too) in one 400."""
    body = (parse_body(raw) if raw else None) or {}
    found = check(
        fields, body, require=require, write_allow=write_allow, params=params, update=update
    )
    if not any(v.code == "invalid_ref" and v.expected.startswith("at most") for v in found):
        # Ids the guard found malformed are not read: they name nothing by construction.
        # Nor are refs the upstream is proven to check itself, when nothing else is
        # wrong: a refusal then finds them (`upstream_refusal`), every one at once.
        refused = {v.field for v in found} | (set() if found else left_to_upstream(fields, body))
        found += await _dangling(reach, fields, body, refused)
    if found:
        order = {key: n for n, key in enumerate(body)}
        found.sort(key=lambda v: (v.code == "missing_required", order.get(v.field, len(order))))
        raise guard_error(found, server_now())
    return body


def left_to_upstream(fields: AbcMapping[str, Field], body: AbcMapping[str, Any]) -> set[str]:
    """The ref fields a write names records with, when every one of them is one the
    upstream is proven to refuse a missing record for (`upstreamChecksRef`, kept only
    where a stamp proved it); else none, and each is checked before the write."""
    named = {
        name for name, value in body.items()
        if (field := fields.get(name)) is not None and field.entity is not None
        and ref_ids(field, value)
    }  # fmt: skip
    if all(fields[name].upstream_checks_ref is True for name in named):
        return named
    return set()


async def upstream_refusal(
    reach: Reach, fields: AbcMapping[str, Field], body: AbcMapping[str, Any], exc: ProtocolError
) -> ProtocolError:
    """An upstream's refusal of a write whose refs were left to it: the refs that name no
    record, read now and reported as the guard reports them; else the refusal itself."""
    if not exc.is_("upstream_rejected") or not left_to_upstream(fields, body):
        return exc
    found = await _dangling(reach, fields, body, set())
    return guard_error(found, server_now()) if found else exc


async def refused_as_missing(
    reach: Reach, fields: AbcMapping[str, Field], body: AbcMapping[str, Any]
) -> None:
    """A call whose refs were left to the upstream answered "no such record": the refs
    that name no record, read now, are refused as the guard refuses them (the upstream's
    own answer stands when every one of them exists)."""
    if not left_to_upstream(fields, body):
        return
    found = await _dangling(reach, fields, body, set())
    if found:
        raise guard_error(found, server_now())


def named_records(
    reach: Reach, fields: AbcMapping[str, Field], body: AbcMapping[str, Any]
) -> list[tuple[Field, str]]:
    """The (ref field, id) pairs of the records a write names, each once."""
    return [
        (field, ref)
        for name, value in body.items()
        if (field := fields.get(name)) is not None and field.entity in reach.mapping.entities
        for ref in dict.fromkeys(ref_ids(field, value))
    ]


async def prefetch_refs(reach: Reach, wanted: list[tuple[Field, str]]) -> None:
    """The records a write names (`named_records`), read into this request's memo
    (`_seen`) so that its receipt's labels need no read of their own; nothing fails the
    write."""
    entities = reach.mapping.entities
    with contextlib.suppress(ProtocolError):
        await bounded(
            reach.fanout,
            (seen.get_record(reach.upstream, entities[f.entity or ""], i) for f, i in wanted),
        )


async def _dangling(
    reach: Reach, fields: AbcMapping[str, Field], body: AbcMapping[str, Any],
    refused: set[str],
) -> list[Violation]:  # fmt: skip
    """A ref that names no record is refused before the upstream sees the write."""
    wanted: list[tuple[Field, Any, str]] = []
    for name, value in body.items():
        field = fields.get(name)
        if field is None or field.entity is None or name in refused:
            continue
        wanted.extend((field, value, ref) for ref in dict.fromkeys(ref_ids(field, value)))
    if not wanted:
        return []
    entities = reach.mapping.entities
    found = await bounded(
        reach.fanout,
        (seen.get_record(reach.upstream, entities[f.entity or ""], i) for f, _, i in wanted),
    )
    violations: list[Violation] = []
    reported: set[str] = set()
    for (field, value, _ref_id), record in zip(wanted, found, strict=True):
        if record is None and field.name not in reported:
            reported.add(field.name)
            violations.append(
                Violation(
                    "invalid_ref", field.name, f"the id of an existing {field.entity} record", value
                )
            )
    return violations
